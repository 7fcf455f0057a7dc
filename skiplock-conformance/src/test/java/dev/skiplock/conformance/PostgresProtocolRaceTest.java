package dev.skiplock.conformance;

class PostgresProtocolRaceTest extends ProtocolRaceContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
