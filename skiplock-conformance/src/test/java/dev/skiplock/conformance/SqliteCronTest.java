package dev.skiplock.conformance;

class SqliteCronTest extends CronContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
