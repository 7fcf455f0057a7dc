package dev.skiplock.conformance;

class SqliteWorkerRegistryTest extends WorkerRegistryContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
