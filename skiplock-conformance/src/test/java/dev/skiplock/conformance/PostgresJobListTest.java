package dev.skiplock.conformance;

class PostgresJobListTest extends JobListContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
