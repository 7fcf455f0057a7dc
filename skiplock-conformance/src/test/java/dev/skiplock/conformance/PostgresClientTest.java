package dev.skiplock.conformance;

class PostgresClientTest extends ClientContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
