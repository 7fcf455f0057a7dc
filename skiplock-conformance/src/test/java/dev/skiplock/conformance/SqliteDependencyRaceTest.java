package dev.skiplock.conformance;

class SqliteDependencyRaceTest extends DependencyRaceContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
