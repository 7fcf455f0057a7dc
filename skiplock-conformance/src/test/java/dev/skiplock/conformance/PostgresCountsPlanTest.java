package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.postgres.PostgresDriver;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The counts per tenant, queue and status are folded sums, a row per group by its key
 * (skiplock_job_counts_folded, migration 0022), and the deltas appended since the last fold
 * (skiplock_job_counts). The reaper's fold (compact_job_counts, every process, every
 * reaperInterval) reads the deltas and the sums of their groups alone, and a tenant's count its own
 * sums: when both lived in one table, the fold grouped all of it and a tenant's count read every
 * row (10,000 tenants of three queues: 76-92 ms a fold with nothing to fold, 6-7 ms a count).
 * Every tenant's count reads the sums' totals per queue and status, which triggers keep
 * (skiplock_job_counts_all_tenants, migration 0023), never the sums themselves (23-29 ms there).
 */
class PostgresCountsPlanTest extends ContractBase {
    private static final int TENANTS = 2_000;
    /** Folded sums: four statuses of three queues per tenant. */
    private static final int SUMS = TENANTS * 3 * 4;
    /** Deltas of one tenant's queue: five rows of one group, five of another. */
    private static final int DELTAS = 10;

    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    @Test
    void theFoldReadsTheDeltasAndTheirGroupsAndATenantsCountItsOwnRows() throws Exception {
        client(); // migrates the schema
        try (Connection connection = DriverManager.getConnection(database.url());
                Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO skiplock_job_counts_folded (tenant, queue, status, jobs)"
                    + " SELECT 't' || t, 'q' || q, s, 7 FROM generate_series(1, " + TENANTS + ") AS t,"
                    + " generate_series(1, 3) AS q, unnest(ARRAY['queued', 'running', 'succeeded', 'failed']) AS s");
            statement.execute("INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)"
                    + " SELECT 't7', 'q1', CASE WHEN i % 2 = 0 THEN 'queued' ELSE 'running' END, 1"
                    + " FROM generate_series(1, " + DELTAS + ") AS i");
            statement.execute("VACUUM ANALYZE skiplock_job_counts_folded, skiplock_job_counts");
        }
        try (Connection reader = DriverManager.getConnection(database.url())) {
            reader.setAutoCommit(false);
            try {
                long[] before = PostgresRetentionPlanTest.reads(reader, "skiplock_job_counts_folded");
                assertThat(fold(reader)).as("groups of the deltas added to their sums").isEqualTo(2);
                long[] after = PostgresRetentionPlanTest.reads(reader, "skiplock_job_counts_folded");
                assertThat(after[0] - before[0]).as("sequential scans of the sums by the fold").isZero();
                assertThat(after[1] - before[1]).as("sums read by the fold").isLessThan(10);
                assertThat(rows(reader, "skiplock_job_counts")).as("deltas left after the fold").isZero();

                try (PreparedStatement count = prepare(reader, "count_jobs")) {
                    for (int i = 1; i <= count.getParameterMetaData().getParameterCount(); i++) {
                        count.setString(i, "t7");
                    }
                    // pgjdbc prepares it on the server at its fifth use and PostgreSQL may then plan it generically
                    for (int i = 0; i < 9; i++) {
                        rows(count);
                    }
                    before = PostgresRetentionPlanTest.reads(reader, "skiplock_job_counts_folded");
                    assertThat(rows(count)).as("t7's queues and statuses").isEqualTo(12);
                    after = PostgresRetentionPlanTest.reads(reader, "skiplock_job_counts_folded");
                }
                assertThat(after[0] - before[0]).as("sequential scans of the sums by a tenant's count").isZero();
                assertThat(after[1] - before[1]).as("sums read by a tenant's count").isLessThan(20);
                assertThat(rows(reader, "skiplock_job_counts_folded")).as("the sums, all kept").isEqualTo(SUMS);

                String everyTenants;
                try (PreparedStatement count = prepare(reader, "count_jobs_all_tenants")) {
                    before = PostgresRetentionPlanTest.reads(reader, "skiplock_job_counts_folded");
                    everyTenants = totals(count);
                    after = PostgresRetentionPlanTest.reads(reader, "skiplock_job_counts_folded");
                }
                assertThat(after[0] - before[0]).as("sequential scans of the sums by every tenant's count").isZero();
                assertThat(after[1] - before[1]).as("sums read by every tenant's count").isZero();
                try (PreparedStatement overTheSums = reader.prepareStatement("SELECT queue, status, sum(jobs) AS jobs"
                        + " FROM skiplock_job_counts_folded GROUP BY queue, status")) {
                    assertThat(everyTenants).as("every tenant's count, against a sum over the folded sums")
                            .isEqualTo(totals(overTheSums)).contains("q1/queued=" + (7 * TENANTS + DELTAS / 2));
                }
            } finally {
                reader.rollback();
            }
        }
    }

    private static PreparedStatement prepare(Connection connection, String name) throws Exception {
        NamedStatement named = SqlFile.load(new PostgresDriver().resourceRoot() + "/sql/jobs.sql").get(name);
        return connection.prepareStatement(named.jdbcSql());
    }

    private static int fold(Connection connection) throws Exception {
        try (PreparedStatement fold = prepare(connection, "compact_job_counts")) {
            return fold.executeUpdate();
        }
    }

    private static long rows(Connection connection, String table) throws Exception {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM " + table)) {
            row.next();
            return row.getLong(1);
        }
    }

    /** A count's rows as {@code queue/status=jobs}, in the key's order. */
    private static String totals(PreparedStatement statement) throws Exception {
        java.util.Map<String, Long> totals = new java.util.TreeMap<>();
        try (ResultSet result = statement.executeQuery()) {
            while (result.next()) {
                totals.put(result.getString("queue") + "/" + result.getString("status"), result.getLong("jobs"));
            }
        }
        return totals.toString();
    }

    private static int rows(PreparedStatement statement) throws Exception {
        int rows = 0;
        try (ResultSet result = statement.executeQuery()) {
            while (result.next()) {
                rows++;
            }
        }
        return rows;
    }
}
