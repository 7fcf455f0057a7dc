package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class PostgresCronTest extends CronContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * A claim that meets a prune's uncommitted delete of its slot's marker waits for the prune to
     * commit, then finds the slot pruned and enqueues nothing. The claim is started from inside the
     * prune's transaction, after its delete, and the prune goes on once the claim waits for it.
     * Before, a pruned marker was the slot's only record and the claim enqueued the slot again; a
     * check of the pruned slots made before the claim's insert (or inside its statement) reads a
     * snapshot from before the prune, and does the same.
     */
    @Test
    void aClaimThatWaitedForAPruneOfItsSlotFindsItPruned() throws Exception {
        claimWaitingForAPruneOfItsSlot(client());
    }

    /**
     * As {@link #aClaimThatWaitedForAPruneOfItsSlotFindsItPruned}, the claim on a pool whose
     * connections are at REPEATABLE READ (a server's, a role's or a pool's default): its check read
     * the snapshot of its transaction's first statement, from before the prune, and the slot ran
     * twice (second reader). The claim's transaction runs at READ COMMITTED.
     */
    @Test
    void aClaimThatWaitedForAPruneOfItsSlotFindsItPrunedAlsoUnderRepeatableRead() throws Exception {
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(database.url());
        config.setTransactionIsolation("TRANSACTION_REPEATABLE_READ");
        try (com.zaxxer.hikari.HikariDataSource repeatableRead = new com.zaxxer.hikari.HikariDataSource(config);
                Skiplock claimer = Skiplock.builder().dataSource(repeatableRead).config(fastConfig().build()).build()) {
            claimWaitingForAPruneOfItsSlot(claimer);
            try (java.sql.Connection connection = repeatableRead.getConnection()) {
                assertThat(connection.getTransactionIsolation()).as("the pool's level, put back")
                        .isEqualTo(java.sql.Connection.TRANSACTION_REPEATABLE_READ);
            }
        }
    }

    /** A prune of a slot's marker starts a claim of that slot by {@code claimer} and commits once the claim waits for it. */
    private void claimWaitingForAPruneOfItsSlot(Skiplock claimer) throws Exception {
        Skiplock skiplock = client();
        JobRequest request = JobRequest.of("tick", null).withQueue("nobody-works-this");
        Instant slot = Instant.parse("2026-01-01T03:00:00Z");
        assertThat(skiplock.enqueueScheduled("nightly", slot, request)).isPresent();
        backdateMarker(skiplock, "nightly", slot, Duration.ofDays(2));
        ExecutorService claims = Executors.newSingleThreadExecutor();
        AtomicReference<Future<Optional<Job>>> claim = new AtomicReference<>();
        DataSource pruning = BeforeStatement.eachTimeOnItsConnection(skiplock.dataSource(),
                BeforeStatement.sql(skiplock, "cron", "record_pruned_cron_slot"), connection -> {
                    long prune = Jdbc.number(connection, "SELECT pg_backend_pid()");
                    claim.set(claims.submit(() -> claimer.enqueueScheduled("nightly", slot, request)));
                    await().atMost(WAIT).pollInterval(Duration.ofMillis(10)).until(() -> Jdbc.query(skiplock.dataSource(),
                            "SELECT count(*) FROM pg_stat_activity WHERE " + prune + " = ANY(pg_blocking_pids(pid))",
                            row -> row.getInt(1)).getFirst() > 0);
                });
        try {
            assertThat(cronStore(pruning).pruneCronSlots(Duration.ofHours(1), 100)).isEqualTo(1);
            assertThat(claim.get()).as("the claim, started by the prune").isNotNull();
            assertThat(claim.get().get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the pruned slot").isEmpty();
        } finally {
            claims.shutdownNow();
        }
        assertThat(skiplock.list(JobQuery.all()).jobs()).hasSize(1);
    }
}
