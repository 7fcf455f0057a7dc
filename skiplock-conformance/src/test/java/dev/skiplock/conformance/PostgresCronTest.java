package dev.skiplock.conformance;

class PostgresCronTest extends CronContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
