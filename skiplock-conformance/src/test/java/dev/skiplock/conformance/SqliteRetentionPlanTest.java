package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Uuid7;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.internal.store.PrunedJobs;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SQLite prunes the history under its one write lock, so a prune that walked the whole history to
 * find fewer jobs than its batch held every writer up (0.3 s a million jobs, issue #12): its walk
 * is a range of the primary key, up to the jobs enqueued before the cutoff. FastPathContract holds
 * both databases to the bound itself; PostgresRetentionPlanTest counts what PostgreSQL reads.
 */
class SqliteRetentionPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    /**
     * Without the bound the plan was {@code SCAN skiplock_jobs USING INDEX ...}: the key from its
     * start to its end. It starts past the last job the run's batch before deleted ({@code id>?}).
     */
    @Test
    void thePrunesWalkIsARangeOfThePrimaryKey() throws Exception {
        List<String> plan = SqlitePlan.of(client(), "prune_finished", (explain, index, name, driver) -> {
            switch (name) {
                case "age_ms" -> explain.setLong(index, 3_600_000);
                case "limit" -> explain.setInt(index, 1_000);
                case "max_events" -> explain.setInt(index, dev.skiplock.internal.store.JobStore.MAX_PRUNED_EVENTS);
                case "enqueued_before" -> driver.dialect().setUuid(explain, index,
                        Uuid7.floor(System.currentTimeMillis() - 3_600_000));
                case "after" -> driver.dialect().setUuid(explain, index, new java.util.UUID(0, 0));
                default -> throw new IllegalStateException("prune_finished has a new parameter: " + name);
            }
        });
        assertThat(plan).as("the plan").anySatisfy(step -> assertThat(step).startsWith("SEARCH skiplock_jobs USING")
                .contains("(id>? AND id<?)"));
        assertThat(plan).as("the plan").noneSatisfy(step -> assertThat(step).startsWith("SCAN skiplock_jobs"));
        assertThat(plan).as("the plan: each candidate's events counted by its index").anySatisfy(step ->
                assertThat(step).startsWith("SEARCH e USING COVERING INDEX skiplock_job_events_job (job_id=?)"));
    }

    /**
     * A batch stops at its jobs' events (their delete holds the write lock every writer waits for):
     * ten finished jobs of 10,000 log lines each go in batches of about 50,000 events, the first job
     * of each whole, until all are gone. Before, one batch took all ten whatever their events
     * (retention reviewer: a first batch of 1,000 such jobs held the lock past the busy timeout).
     */
    @Test
    void aBatchStopsAtItsJobsEvents() {
        Skiplock client = client();
        for (int i = 0; i < 10; i++) {
            client.enqueue(JobRequest.of("chatty", null).withQueue("nobody-works-this"));
        }
        Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs SET status = 'succeeded', finished_at = 0");
        Jdbc.update(client.dataSource(), "INSERT INTO skiplock_job_events (job_id, attempt, type, stream, message, line)"
                + " WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999)"
                + " SELECT j.id, 1, 'log', 'stdout', 'a line', n.i FROM skiplock_jobs j, n");
        JobStore store = FastPathContract.store(client);

        PrunedJobs batch = store.pruneFinished(0, 1_000, null);
        int first = batch.deleted();
        assertThat(first).as("the first batch's jobs").isBetween(1, JobStore.MAX_PRUNED_EVENTS / 10_000 + 1);
        int rest = 0;
        // as Retention runs them: each batch goes on past the last job the one before deleted
        for (batch = store.pruneFinished(0, 1_000, batch.last()); batch.deleted() > 0;
                batch = store.pruneFinished(0, 1_000, batch.last())) {
            assertThat(batch.deleted()).isLessThanOrEqualTo(first);
            rest += batch.deleted();
        }
        assertThat(first + rest).isEqualTo(10);
        assertThat(Jdbc.query(client.dataSource(), "SELECT count(*) FROM skiplock_job_events", row -> row.getLong(1)))
                .containsExactly(0L);
    }
}
