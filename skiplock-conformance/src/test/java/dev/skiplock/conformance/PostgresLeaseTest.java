package dev.skiplock.conformance;

class PostgresLeaseTest extends LeaseContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
