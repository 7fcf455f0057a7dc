package dev.skiplock.conformance;

class SqliteFastPathTest extends FastPathContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
