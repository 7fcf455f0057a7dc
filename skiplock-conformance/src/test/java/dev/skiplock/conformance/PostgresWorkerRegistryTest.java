package dev.skiplock.conformance;

class PostgresWorkerRegistryTest extends WorkerRegistryContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
