package dev.skiplock.conformance;

class PostgresAccessTest extends AccessContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
