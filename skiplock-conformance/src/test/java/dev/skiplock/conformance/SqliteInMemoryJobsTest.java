package dev.skiplock.conformance;

class SqliteInMemoryJobsTest extends InMemoryJobsContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
