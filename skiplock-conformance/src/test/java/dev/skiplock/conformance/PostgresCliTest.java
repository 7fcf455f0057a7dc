package dev.skiplock.conformance;

class PostgresCliTest extends CliContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
