package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.postgres.PostgresDriver;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * skiplock_job_throughput keeps an hour of finishes per tenant, queue and minute. The reaper's fold
 * (compact_job_throughput, every process, every reaperInterval) and the overview's read
 * (queue_activity, every 2 s on the dashboard) need only a few of those minutes, and read only them,
 * by the minute's index (migration 0021). Without it both read the whole table (1,001 tenants of
 * three queues: a fold 83-94 ms, the overview 6-15 ms).
 */
class PostgresThroughputPlanTest extends ContractBase {
    private static final int TENANTS = 300;
    private static final int QUEUES = 3;
    /** Rows of the table: an hour of minutes per tenant and queue, one more hour-old minute, 100 deltas. */
    private static final int ROWS = TENANTS * QUEUES * 61 + 100;

    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * 55,000 rows appended minute by minute, as finishes append them: the fold reads the hour-old
     * minute it deletes and its window of recent minutes, the overview its last 15 minutes, each
     * without a sequential scan and well under half the table.
     */
    @Test
    void theFoldAndTheOverviewReadOnlyTheMinutesTheyNeed() throws Exception {
        Skiplock skiplock = client();
        try (Connection connection = DriverManager.getConnection(database.url());
                Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)"
                    + " SELECT 't' || t, 'q' || q, date_trunc('minute', now()) - m * interval '1 minute', 5"
                    + " FROM generate_series(61, 0, -1) AS m, generate_series(1, " + TENANTS + ") AS t,"
                    + " generate_series(1, " + QUEUES + ") AS q WHERE m <> 60 ORDER BY m DESC, t, q");
            statement.execute("INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)"
                    + " SELECT 't1', 'q1', date_trunc('minute', now()), 1 FROM generate_series(1, 100)");
            statement.execute("VACUUM ANALYZE skiplock_job_throughput");
        }
        assertThat(Jdbc.query(skiplock.dataSource(), "SELECT count(*) FROM skiplock_job_throughput", row -> row.getLong(1)))
                .containsExactly((long) ROWS);
        try (Connection reader = DriverManager.getConnection(database.url())) {
            reader.setAutoCommit(false);
            try {
                long[] before = PostgresRetentionPlanTest.reads(reader, "skiplock_job_throughput");
                int written = run(reader, "compact_job_throughput", null);
                long[] after = PostgresRetentionPlanTest.reads(reader, "skiplock_job_throughput");
                assertThat(written).as("rows of the folded deltas written").isEqualTo(1);
                assertThat(after[0] - before[0]).as("sequential scans by the fold").isZero();
                assertThat(after[1] - before[1]).as("rows read by the fold").isLessThan(ROWS / 5);
                for (String tenant : Arrays.asList("t7", null)) {
                    before = PostgresRetentionPlanTest.reads(reader, "skiplock_job_throughput");
                    run(reader, "queue_activity", tenant);
                    after = PostgresRetentionPlanTest.reads(reader, "skiplock_job_throughput");
                    assertThat(after[0] - before[0]).as("sequential scans by the overview, tenant %s", tenant).isZero();
                    assertThat(after[1] - before[1]).as("rows read by the overview, tenant %s", tenant).isLessThan(ROWS / 3);
                }
            } finally {
                reader.rollback();
            }
        }
    }

    /**
     * Runs {@code name} of jobs.sql with the reaper's default fold window and {@code tenant}; returns
     * the rows it wrote, or read.
     */
    private static int run(Connection connection, String name, String tenant) throws Exception {
        NamedStatement named = SqlFile.load(new PostgresDriver().resourceRoot() + "/sql/jobs.sql").get(name);
        try (PreparedStatement statement = connection.prepareStatement(named.jdbcSql())) {
            for (int i = 0; i < named.parameters().size(); i++) {
                switch (named.parameters().get(i)) {
                    case "fold_ms" -> statement.setLong(i + 1, 75_000);
                    case "tenant" -> statement.setString(i + 1, tenant);
                    default -> throw new IllegalArgumentException(named.parameters().get(i));
                }
            }
            if (!statement.execute()) {
                return statement.getUpdateCount();
            }
            int rows = 0;
            try (ResultSet result = statement.getResultSet()) {
                while (result.next()) {
                    rows++;
                }
            }
            return rows;
        }
    }
}
