package dev.skiplock.conformance;

class SqliteDashboardTest extends DashboardContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
