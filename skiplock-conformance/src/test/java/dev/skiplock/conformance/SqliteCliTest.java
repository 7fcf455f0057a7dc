package dev.skiplock.conformance;

class SqliteCliTest extends CliContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
