package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL plans its claim once per connection (migration 0016: a generic plan, where a prepared
 * statement was planned for each call once the table had statistics), and that plan must not
 * follow the statistics it was made with: a queue is often empty when autovacuum analyzes it, and
 * a burst follows.
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
                assertThat(claim(claimer, claimJobs)).isEmpty();
            }
            List<JobRequest> burst = new ArrayList<>();
            for (int i = 0; i < BURST; i++) {
                burst.add(JobRequest.of("work", new Work(i)));
            }
            producer.enqueueMany(burst);

            claimer.setAutoCommit(false);
            try {
                long[] before = scans(claimer);
                assertThat(claim(claimer, claimJobs)).hasSize(10);
                long[] after = scans(claimer);
                assertThat(after[0] - before[0]).as("sequential scans of skiplock_jobs by the claim").isZero();
                assertThat(after[1] - before[1]).as("index scans of skiplock_jobs by the claim").isPositive();
            } finally {
                claimer.rollback();
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

    /** Runs claim_jobs for up to 10 jobs from the start of the queue; returns the ids claimed. */
    private static List<String> claim(Connection connection, NamedStatement claimJobs) throws Exception {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement statement = PostgresClaimCall.prepare(connection, claimJobs, null, 10);
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                ids.add(rows.getString("id"));
            }
        }
        return ids;
    }
}
