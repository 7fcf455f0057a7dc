package dev.skiplock.conformance;

class SqliteConcurrencyTest extends ConcurrencyContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
