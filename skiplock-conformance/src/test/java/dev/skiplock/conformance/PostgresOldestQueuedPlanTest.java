package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.QueueActivity;
import dev.skiplock.Skiplock;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /api/v1/queues}, the dashboard's overview and {@code skiplock top} read each queue's
 * oldest queued job every 2 s. oldest_queued, min(available_at) over the queued jobs, reads every
 * one, delayed ones included (500,000 delayed by a day: 55-62 ms a call, issue #12); the store reads
 * queues of many jobs with oldest_queued_by_priority, which reads each priority's first due job
 * (OldestQueuedReadTest: which one; MetricsContract: both find the same, on both databases).
 */
class PostgresOldestQueuedPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * 5,000 jobs delayed by a day at priority 5 and 5,000 at priority 0, one job due at priority -5:
     * for every tenant and for one, oldest_queued_by_priority reads a few pages of
     * skiplock_jobs_claimable and the due job's row. oldest_queued reads the whole table here (a
     * sequential scan).
     */
    @Test
    void theOldestQueuedJobIsFoundWithoutReadingTheDelayedJobs() throws Exception {
        Skiplock producer = client();
        DelayedJobs.enqueue(producer, 5, 0);
        Job due = DelayedJobs.enqueueDue(producer, -5);
        try (Connection reader = DriverManager.getConnection(database.url())) {
            try (Statement statement = reader.createStatement()) {
                statement.execute("VACUUM ANALYZE skiplock_jobs");
            }
            for (String tenant : Arrays.asList(null, "default")) {
                reader.setAutoCommit(false);
                try {
                    long[] before = PostgresRetentionPlanTest.reads(reader);
                    long pagesBefore = PostgresClaimCall.claimIndexPages(reader);
                    assertThat(OldestQueuedCall.run(reader, FastPathContract.driver(producer), "oldest_queued_by_priority",
                            tenant).keySet()).as("queues with a due job, tenant %s", tenant).containsExactly("default");
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
        // 10,001 queued jobs in one queue, all the tenant's: the store reads them by the probes.
        assertThat(producer.activity()).singleElement().extracting(QueueActivity::oldestQueuedAt).isEqualTo(due.availableAt());
        assertThat(producer.activityAllTenants()).singleElement().extracting(QueueActivity::oldestQueuedAt)
                .isEqualTo(due.availableAt());
    }
}
