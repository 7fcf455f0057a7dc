package dev.skiplock.conformance;

class SqliteMetricsTest extends MetricsContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
