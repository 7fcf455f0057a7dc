package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.JobStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The claim counts its own jobs and sets {@code skiplock.bookkept_by_statement} for its call only
 * (migration 0034), which the two statement triggers of updates test in their {@code WHEN}: the
 * counts' and the dependency trigger. Forced here on one backend, the way a pool hands a worker
 * the same connection again: the statement after a claim, on that connection, in its own
 * transaction or in the claim's, still fires both (a flag that outlived the call would leave its
 * successes uncounted and its dependents waiting for good). PostgreSQL only: SQLite's claim fires
 * no status trigger (0017) and has no such flag.
 */
class PostgresClaimBookkeepingTest extends ContractBase {
    private static final String FLAG = "skiplock.bookkept_by_statement";

    record Work(String label) {
    }

    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    @Test
    void theStatementAfterAClaimOnItsConnectionIsCountedAndReleasesDependents() throws Exception {
        claimThenCompleteOnOneConnection(true);
    }

    @Test
    void theStatementAfterAClaimInTheClaimsTransactionIsCountedAndReleasesDependents() throws Exception {
        claimThenCompleteOnOneConnection(false);
    }

    private void claimThenCompleteOnOneConnection(boolean autoCommit) throws Exception {
        Skiplock skiplock = client();
        Job first = skiplock.enqueue(JobRequest.of("ok", new Work("first")));
        Job dependent = skiplock.enqueue(JobRequest.of("ok", new Work("later")).withQueue("later")
                .withDependsOn(List.of(first.id())));
        assertThat(dependent.status()).isEqualTo(JobStatus.WAITING);

        try (Connection connection = DriverManager.getConnection(database.url())) {
            connection.setAutoCommit(autoCommit);
            JobStore store = new JobStore(OneConnection.lending(connection), FastPathContract.driver(skiplock));
            List<Claimed> claimed = store.claimJobs(
                    new ClaimParams("default", "worker-1", "host-1", UUID.randomUUID(), 60_000, "[]"), 1);
            assertThat(claimed).extracting(job -> job.job().id()).containsExactly(first.id());
            assertThat(setting(connection)).as("the flag after the claim's call, on its connection")
                    .isNotEqualTo("on");

            assertThat(store.completeJobs(List.of(new Completion(claimed.getFirst().lease(), JobStatus.SUCCEEDED, 0,
                    null, null, 0)))).hasSize(1);
            if (!autoCommit) {
                connection.commit();
            }
        }

        assertThat(skiplock.get(first.id()).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(skiplock.get(dependent.id()).orElseThrow().status()).as("released by the dependency trigger")
                .isEqualTo(JobStatus.QUEUED);
        assertThat(MetricsContract.counted(skiplock)).as("the counts' trigger fired for the completion")
                .isEqualTo(MetricsContract.countedOverTheJobs(skiplock))
                .containsEntry("default/succeeded", 1L).containsEntry("later/queued", 1L)
                .doesNotContainKey("default/running");
    }

    /** The flag as the session sees it now ({@code null}: never set on this connection). */
    private static String setting(Connection connection) throws Exception {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT current_setting('" + FLAG + "', true)")) {
            row.next();
            return row.getString(1);
        }
    }
}
