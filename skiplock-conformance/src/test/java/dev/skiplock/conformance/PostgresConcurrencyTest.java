package dev.skiplock.conformance;

class PostgresConcurrencyTest extends ConcurrencyContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
