package dev.skiplock.conformance;

class SqliteJobListTest extends JobListContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
