package dev.skiplock.conformance;

class PostgresFastPathTest extends FastPathContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
