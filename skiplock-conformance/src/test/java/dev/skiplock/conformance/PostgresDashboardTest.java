package dev.skiplock.conformance;

class PostgresDashboardTest extends DashboardContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
