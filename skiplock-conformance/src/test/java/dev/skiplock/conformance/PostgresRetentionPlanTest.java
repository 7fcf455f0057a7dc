package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.internal.store.PrunedJobs;
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

    /**
     * A run's batches each go on past the last job the one before deleted. 20,000 jobs that finished
     * a moment ago lie below 3,000 that finished an hour ago; a run of three batches of 1,000 walks
     * the 20,000 once. The run is one transaction here, so the entries of the jobs it deleted stay in
     * the indexes, as they do while a long transaction holds vacuum back. From the oldest id, each
     * batch walked again the 20,000 and the entries of every job deleted before it (66,009
     * index entries a run on PostgreSQL 15; 25,010 now).
     */
    @Test
    void aRunsBatchesDoNotWalkAgainWhatTheBatchesBeforeWalked() throws Exception {
        Skiplock client = client();
        enqueue(client, 20_000);
        List<dev.skiplock.Job> longAgo = enqueue(client, 3_000);
        Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs SET status = 'cancelled', finished_at = now()");
        Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs SET finished_at = now() - interval '1 hour'"
                + " WHERE id >= '" + longAgo.getFirst().id() + "'");
        try (Connection connection = DriverManager.getConnection(database.url())) {
            try (Statement analyze = connection.createStatement()) {
                analyze.execute("VACUUM ANALYZE skiplock_jobs");
            }
            connection.setAutoCommit(false);
            try {
                JobStore store = new JobStore(OneConnection.lending(connection), FastPathContract.driver(client));
                long before = indexEntriesRead(connection);
                java.util.UUID after = null;
                for (int batch = 0; batch < 3; batch++) {
                    PrunedJobs pruned = store.pruneFinished(60_000, 1_000, after);
                    assertThat(pruned.deleted()).as("batch " + batch).isEqualTo(1_000);
                    after = pruned.last();
                }
                long read = indexEntriesRead(connection) - before;
                assertThat(after).as("the last job deleted").isEqualTo(longAgo.getLast().id());
                assertThat(store.pruneFinished(60_000, 1_000, after).deleted()).as("none past the last").isZero();
                // the 20,000 once, the 3,000 once or twice, each deleted job once more by its id
                assertThat(read).as("index entries of skiplock_jobs the run read").isLessThan(33_000);
            } finally {
                connection.rollback();
            }
        }
    }

    /** Enqueues {@code count} jobs to a queue nobody serves, in batches of 1,000. */
    private static List<dev.skiplock.Job> enqueue(Skiplock client, int count) {
        List<dev.skiplock.Job> jobs = new ArrayList<>();
        for (int from = 0; from < count; from += 1_000) {
            List<JobRequest> batch = new ArrayList<>();
            for (int i = from; i < Math.min(count, from + 1_000); i++) {
                batch.add(JobRequest.of("work", new Work(i)).withQueue("parking"));
            }
            jobs.addAll(client.enqueueMany(batch));
        }
        return jobs;
    }

    /** Entries the scans of skiplock_jobs' indexes returned in this transaction so far, those of deleted rows too. */
    private static long indexEntriesRead(Connection connection) throws Exception {
        return Jdbc.number(connection, "SELECT sum(pg_stat_get_xact_tuples_returned(indexrelid)) FROM pg_index"
                + " WHERE indrelid = 'skiplock_jobs'::regclass");
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
