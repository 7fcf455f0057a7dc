package dev.skiplock.conformance;

class SqliteHostileDataTest extends HostileDataContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
