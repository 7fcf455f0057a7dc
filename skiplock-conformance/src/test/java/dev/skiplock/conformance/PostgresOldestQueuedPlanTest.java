package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /api/v1/queues}, the dashboard's overview and {@code skiplock top} read each queue's
 * oldest queued job every 2 s. min(available_at) over the queued jobs read every one, delayed ones
 * included (500,000 delayed by a day: 55-62 ms a call, issue #12); the statement now reads each
 * priority's first due job. MetricsContract holds both databases to what it returns.
 */
class PostgresOldestQueuedPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * 5,000 jobs delayed by a day at priority 5 and 5,000 at priority 0, one job due at priority -5:
     * for every tenant and for one, oldest_queued reads a few pages of skiplock_jobs_claimable and
     * the due job's row. Before, it read the whole table (a sequential scan).
     */
    @Test
    void theOldestQueuedJobIsFoundWithoutReadingTheDelayedJobs() throws Exception {
        Skiplock producer = client();
        PostgresClaimPlanTest.enqueueDelayed(producer, 5, 0);
        producer.enqueue(JobRequest.of("work", new PostgresClaimPlanTest.Work(-1)).withPriority(-5));
        NamedStatement oldestQueued = SqlFile.load(FastPathContract.driver(producer).resourceRoot() + "/sql/jobs.sql")
                .get("oldest_queued");
        try (Connection reader = DriverManager.getConnection(database.url())) {
            try (Statement statement = reader.createStatement()) {
                statement.execute("VACUUM ANALYZE skiplock_jobs");
            }
            for (String tenant : Arrays.asList(null, "default")) {
                reader.setAutoCommit(false);
                try {
                    long[] before = PostgresRetentionPlanTest.reads(reader);
                    long pagesBefore = PostgresClaimCall.claimIndexPages(reader);
                    assertThat(queues(reader, oldestQueued, tenant)).as("queues with a due job, tenant %s", tenant)
                            .containsExactly("default");
                    long pagesRead = PostgresClaimCall.claimIndexPages(reader) - pagesBefore;
                    long[] after = PostgresRetentionPlanTest.reads(reader);
                    assertThat(after[0] - before[0]).as("sequential scans of skiplock_jobs").isZero();
                    assertThat(after[1] - before[1]).as("rows of skiplock_jobs read, tenant %s", tenant).isLessThan(10);
                    assertThat(pagesRead).as("pages of skiplock_jobs_claimable read, tenant %s", tenant).isLessThan(40);
                } finally {
                    reader.rollback();
                    reader.setAutoCommit(true);
                }
            }
        }
    }

    private static List<String> queues(Connection connection, NamedStatement oldestQueued, String tenant) throws Exception {
        List<String> queues = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(oldestQueued.jdbcSql())) {
            for (int i = 1; i <= oldestQueued.parameters().size(); i++) {
                statement.setString(i, tenant);
            }
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    queues.add(rows.getString("queue"));
                }
            }
        }
        return queues;
    }
}
