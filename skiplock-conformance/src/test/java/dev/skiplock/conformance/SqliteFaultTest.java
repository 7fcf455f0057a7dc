package dev.skiplock.conformance;

/** The fault suite on one SQLite file shared by several worker processes of this host (no server to restart). */
class SqliteFaultTest extends FaultContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    @Override
    protected FaultPostgres restartable() {
        return null;
    }
}
