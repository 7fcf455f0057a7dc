package dev.skiplock.conformance;

class SqliteProtocolRaceTest extends ProtocolRaceContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
