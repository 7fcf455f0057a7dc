package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.store.JobStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every worker prunes the history each pruneInterval and, in a steady state, finds few jobs past
 * the cutoff. Walking the primary key with no bound, PostgreSQL planned that as a sequential scan
 * of the whole history whenever the statistics held few such jobs (issue #12: 1.7-3.4 s and a JIT
 * compilation a run at 10 million jobs). FastPathContract holds both databases to the bound itself.
 */
class PostgresRetentionPlanTest extends ContractBase {
    private static final int HISTORY = 20_000;

    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    record Work(int n) {
    }

    /**
     * A history of 20,000 jobs enqueued and finished now, with statistics: a prune of what finished
     * over an hour ago reads none of it (it would read what was enqueued before the cutoff and is
     * still there: jobs still waiting or running, or finished since). Without the bound it scanned
     * the table (one sequential scan, 20,000 rows).
     */
    @Test
    void aPruneThatFindsNothingPastTheCutoffReadsNoneOfTheHistory() throws Exception {
        Skiplock client = client();
        for (int from = 0; from < HISTORY; from += 1_000) {
            List<JobRequest> batch = new ArrayList<>();
            for (int i = from; i < from + 1_000; i++) {
                batch.add(JobRequest.of("work", new Work(i)).withQueue("parking"));
            }
            client.enqueueMany(batch);
        }
        Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs SET status = 'cancelled', finished_at = now()");
        try (Connection connection = DriverManager.getConnection(database.url())) {
            try (Statement analyze = connection.createStatement()) {
                analyze.execute("VACUUM ANALYZE skiplock_jobs"); // the update's old versions gone: the planner's look at the key's ends reads live rows only
            }
            connection.setAutoCommit(false);
            try {
                JobStore store = new JobStore(OneConnection.lending(connection), FastPathContract.driver(client));
                long[] before = reads(connection);
                assertThat(store.pruneFinished(3_600_000, 1_000)).isZero();
                long[] after = reads(connection);
                assertThat(after[0] - before[0]).as("sequential scans of skiplock_jobs by the prune").isZero();
                // a few: the planner reads the ends of the primary key when the bound lies beyond its statistics
                assertThat(after[1] - before[1]).as("rows of skiplock_jobs the prune read").isLessThan(10);
            } finally {
                connection.rollback();
            }
        }
    }

    /** {@link #reads(Connection, String)} of skiplock_jobs. */
    static long[] reads(Connection connection) throws Exception {
        return reads(connection, "skiplock_jobs");
    }

    /**
     * Sequential scans of {@code table} and the rows read by scans of any kind, counted in this
     * transaction so far (PostgreSQL 15 adds counts of earlier transactions it has not reported
     * yet: compare two readings).
     */
    static long[] reads(Connection connection, String table) throws Exception {
        try (PreparedStatement statement = connection.prepareStatement("SELECT seq_scan,"
                + " seq_tup_read + coalesce(idx_tup_fetch, 0) AS rows_read FROM pg_stat_xact_user_tables"
                + " WHERE schemaname = current_schema() AND relname = ?")) {
            statement.setString(1, table);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return new long[] {row.getLong("seq_scan"), row.getLong("rows_read")};
            }
        }
    }
}
