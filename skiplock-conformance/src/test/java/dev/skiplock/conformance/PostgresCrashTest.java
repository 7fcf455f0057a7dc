package dev.skiplock.conformance;

class PostgresCrashTest extends CrashContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
