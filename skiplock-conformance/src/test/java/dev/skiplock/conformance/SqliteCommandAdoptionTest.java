package dev.skiplock.conformance;

class SqliteCommandAdoptionTest extends CommandAdoptionContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
