package dev.skiplock.conformance;

class SqliteClaimFloorTest extends ClaimFloorContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
