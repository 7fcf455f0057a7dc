package dev.skiplock.conformance;

class PostgresDependencyRaceTest extends DependencyRaceContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
