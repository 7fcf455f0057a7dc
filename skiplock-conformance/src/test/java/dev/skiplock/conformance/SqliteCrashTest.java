package dev.skiplock.conformance;

class SqliteCrashTest extends CrashContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
