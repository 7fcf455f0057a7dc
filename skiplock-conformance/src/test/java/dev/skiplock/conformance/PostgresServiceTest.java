package dev.skiplock.conformance;

class PostgresServiceTest extends ServiceContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
