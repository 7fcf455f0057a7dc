package dev.skiplock.conformance;

class SqliteDependenciesTest extends DependenciesContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
