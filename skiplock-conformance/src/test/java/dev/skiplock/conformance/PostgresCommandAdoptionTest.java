package dev.skiplock.conformance;

class PostgresCommandAdoptionTest extends CommandAdoptionContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
