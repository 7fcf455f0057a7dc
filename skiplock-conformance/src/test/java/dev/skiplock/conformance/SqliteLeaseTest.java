package dev.skiplock.conformance;

class SqliteLeaseTest extends LeaseContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
