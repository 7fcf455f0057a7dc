package dev.skiplock.conformance;

class PostgresBackgroundLoopsTest extends BackgroundLoopsContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
