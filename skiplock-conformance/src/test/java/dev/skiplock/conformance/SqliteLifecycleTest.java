package dev.skiplock.conformance;

class SqliteLifecycleTest extends LifecycleContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
