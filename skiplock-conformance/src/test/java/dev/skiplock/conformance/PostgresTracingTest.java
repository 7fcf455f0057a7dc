package dev.skiplock.conformance;

class PostgresTracingTest extends TracingContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
