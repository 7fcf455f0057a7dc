package dev.skiplock.conformance;

class PostgresDependenciesTest extends DependenciesContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
