package dev.skiplock.conformance;

class SqliteClientTest extends ClientContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
