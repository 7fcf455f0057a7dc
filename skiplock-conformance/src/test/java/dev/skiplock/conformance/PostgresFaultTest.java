package dev.skiplock.conformance;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The fault suite on a PostgreSQL server of its own, which it restarts mid-run (FaultPostgres). */
class PostgresFaultTest extends FaultContract {
    private static FaultPostgres postgres;

    @BeforeAll
    static void startServer() throws Exception {
        postgres = FaultPostgres.open();
    }

    @AfterAll
    static void stopServer() throws Exception {
        postgres.close();
    }

    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase(postgres.serverUrl());
    }

    @Override
    protected FaultPostgres restartable() {
        return postgres;
    }
}
