package dev.skiplock.conformance;

class SqliteAccessTest extends AccessContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
