package dev.skiplock.conformance;

class SqliteBackgroundLoopsTest extends BackgroundLoopsContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
