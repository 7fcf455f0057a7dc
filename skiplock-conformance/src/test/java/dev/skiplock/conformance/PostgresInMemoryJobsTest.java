package dev.skiplock.conformance;

class PostgresInMemoryJobsTest extends InMemoryJobsContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
