package dev.skiplock.conformance;

class SqliteServiceTest extends ServiceContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
