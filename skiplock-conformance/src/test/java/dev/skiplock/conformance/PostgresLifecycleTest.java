package dev.skiplock.conformance;

class PostgresLifecycleTest extends LifecycleContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
