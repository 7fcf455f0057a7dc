package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.store.ClaimFloor;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL plans its claim once per connection (migration 0016: a generic plan, where a prepared
 * statement was planned for each call once the table had statistics), and that plan must not
 * follow the statistics it was made with: a queue is often empty when autovacuum analyzes it, and
 * a burst follows. Nor may it read the jobs not yet due (migration 0019).
 */
class PostgresClaimPlanTest extends ContractBase {
    private static final int BURST = 2_000;

    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    record Work(int n) {
    }

    /**
     * Statistics of an empty table, the claim planned on one connection while the queue is empty,
     * then a burst: a claim on that connection reads the claimable index, never the whole table.
     * Planned for an empty table without the function's planner settings, the claim scanned (and
     * sorted) the table for every claim of the burst.
     */
    @Test
    void aClaimPlannedWhileTheQueueWasEmptyReadsTheIndexWhenABurstCame() throws Exception {
        Skiplock producer = client();
        NamedStatement claimJobs = PostgresClaimCall.statement(producer);
        try (Connection claimer = DriverManager.getConnection(database.url())) {
            try (Statement statement = claimer.createStatement()) {
                statement.execute("ANALYZE skiplock_jobs");
            }
            for (int call = 0; call < 6; call++) {
                assertThat(PostgresClaimCall.claimIds(claimer, claimJobs, null, 10)).isEmpty();
            }
            List<JobRequest> burst = new ArrayList<>();
            for (int i = 0; i < BURST; i++) {
                burst.add(JobRequest.of("work", new Work(i)));
            }
            producer.enqueueMany(burst);

            claimer.setAutoCommit(false);
            try {
                long[] before = scans(claimer);
                assertThat(PostgresClaimCall.claimIds(claimer, claimJobs, null, 10)).hasSize(10);
                long[] after = scans(claimer);
                assertThat(after[0] - before[0]).as("sequential scans of skiplock_jobs by the claim").isZero();
                assertThat(after[1] - before[1]).as("index scans of skiplock_jobs by the claim").isPositive();
            } finally {
                claimer.rollback();
            }
        }
    }

    /**
     * 5,000 jobs delayed by a day at priority 5 and 5,000 at priority 0, and one job due at
     * priority -5: a claim from the start of the queue (a claimer's first) and one from a floor at
     * priority 0 each take the due job and read a few pages of skiplock_jobs_claimable (16-17). Before
     * migration 0019 each read the index entries of every delayed job (54-92 pages here: the
     * parts of the claim that span several priorities could not stop at the first job not yet due;
     * the entries failed its condition on available_at inside the index, so no row was read).
     */
    @Test
    void aClaimReadsNoneOfTheDelayedJobs() throws Exception {
        Skiplock producer = client();
        DelayedJobs.enqueue(producer, 5, 0);
        Job due = DelayedJobs.enqueueDue(producer, -5);
        NamedStatement claimJobs = PostgresClaimCall.statement(producer);
        ClaimFloor atPriorityZero = new ClaimFloor(0, Instant.now().minus(Duration.ofHours(1)), new UUID(0, 0));
        try (Connection claimer = DriverManager.getConnection(database.url())) {
            try (Statement statement = claimer.createStatement()) {
                statement.execute("VACUUM ANALYZE skiplock_jobs");
            }
            for (ClaimFloor floor : Arrays.asList(null, atPriorityZero)) {
                claimer.setAutoCommit(false);
                try {
                    long[] before = PostgresRetentionPlanTest.reads(claimer);
                    long pagesBefore = PostgresClaimCall.claimIndexPages(claimer);
                    assertThat(PostgresClaimCall.claimIds(claimer, claimJobs, floor, 10)).as("claimed from floor %s", floor)
                            .containsExactly(due.id().toString());
                    long pagesRead = PostgresClaimCall.claimIndexPages(claimer) - pagesBefore;
                    long[] after = PostgresRetentionPlanTest.reads(claimer);
                    assertThat(after[0] - before[0]).as("sequential scans of skiplock_jobs by the claim").isZero();
                    assertThat(after[1] - before[1]).as("rows of skiplock_jobs the claim read").isLessThan(10);
                    assertThat(pagesRead).as("pages of skiplock_jobs_claimable the claim read from floor %s", floor)
                            .isLessThan(40);
                } finally {
                    claimer.rollback();
                    claimer.setAutoCommit(true);
                }
            }
        }
    }

    /**
     * Sequential and index scans of skiplock_jobs counted in this transaction so far (PostgreSQL 15
     * adds counts of earlier transactions it has not reported yet: compare two readings).
     */
    private static long[] scans(Connection connection) throws Exception {
        try (PreparedStatement statement = connection.prepareStatement("SELECT seq_scan, idx_scan"
                + " FROM pg_stat_xact_user_tables WHERE schemaname = current_schema() AND relname = 'skiplock_jobs'");
                ResultSet row = statement.executeQuery()) {
            row.next();
            return new long[] {row.getLong("seq_scan"), row.getLong("idx_scan")};
        }
    }
}
