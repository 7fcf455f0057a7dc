package dev.skiplock.conformance;

class SqliteFailureTest extends FailureContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
