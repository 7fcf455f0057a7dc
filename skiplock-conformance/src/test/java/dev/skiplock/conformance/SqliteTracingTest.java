package dev.skiplock.conformance;

class SqliteTracingTest extends TracingContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
