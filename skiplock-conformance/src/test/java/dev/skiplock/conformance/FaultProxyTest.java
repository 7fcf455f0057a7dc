package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What the fault suite's proxy records of a claim whose answer never reached its worker: a cut
 * claim, which the suite then expects to be given back, only where the claim can have committed.
 * Forced: the proxy's hook closes the connection after the server's answer ended and before it is
 * passed on, as a worker stopped at that moment leaves it. A claim in a transaction block (a
 * worker's warm-up rehearses the claim in one it rolls back) was recorded as cut too, and the
 * check then reported its job, which never existed, as never given back (a clean-clone CI on
 * PostgreSQL, once: "its status events: []"). PostgreSQL only, as the proxy.
 */
class FaultProxyTest {
    /**
     * A claim whose answer the proxy recognizes (the first column a job id), on this connection only;
     * its creation is not a call (no parenthesis right after the name).
     */
    private static final String CLAIM_FUNCTION = "CREATE FUNCTION pg_temp.skiplock_claim_jobs (jobs integer)"
            + " RETURNS TABLE (id uuid) LANGUAGE sql AS $$ SELECT gen_random_uuid() FROM generate_series(1, jobs) $$";

    @Test
    void aClaimCommittedOnItsOwnWhoseAnswerIsLostIsRecordedAsCut() throws Exception {
        assertThat(claimWhoseAnswerIsLost(true)).singleElement().satisfies(claim -> {
            assertThat(claim.cut()).isTrue();
            assertThat(claim.jobIds()).hasSize(1);
        });
    }

    @Test
    void aClaimInATransactionBlockWhoseAnswerIsLostIsNotRecorded() throws Exception {
        assertThat(claimWhoseAnswerIsLost(false)).isEmpty();
    }

    /** The proxy's records after one claim, {@code autoCommit} or in a block, whose answer the worker never got. */
    private static java.util.List<FaultProxy.Claim> claimWhoseAnswerIsLost(boolean autoCommit) throws Exception {
        String url = PostgresTestDatabase.server();
        var server = FaultProxy.serverOf(url);
        try (FaultProxy proxy = new FaultProxy(server.getHostString(), server.getPort(), 0);
                Connection connection = DriverManager.getConnection(proxy.url(url))) {
            try (Statement statement = connection.createStatement()) {
                statement.execute(CLAIM_FUNCTION);
            }
            connection.setAutoCommit(autoCommit);
            if (!autoCommit) {
                // as the warm-up's rehearsal: its jobs inserted in the block, then claimed
                try (Statement before = connection.createStatement()) {
                    before.execute("SELECT 1");
                }
            }
            proxy.beforeAnswerPassedOn(proxy::cutAll);
            assertThatThrownBy(() -> {
                try (Statement claim = connection.createStatement()) {
                    claim.executeQuery("SELECT * FROM pg_temp.skiplock_claim_jobs(1)");
                }
            }).isInstanceOf(SQLException.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> proxy.answersEnded() == 1);
            return proxy.claims();
        }
    }
}
