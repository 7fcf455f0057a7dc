package dev.skiplock.conformance;

class PostgresHostileDataTest extends HostileDataContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
