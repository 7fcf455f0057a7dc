package dev.skiplock.conformance;

class PostgresFailureTest extends FailureContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
