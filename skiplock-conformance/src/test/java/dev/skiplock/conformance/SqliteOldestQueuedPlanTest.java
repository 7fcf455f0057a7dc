package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.QueueActivity;
import dev.skiplock.Skiplock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * oldest_queued_by_priority, the store's read of each queue's oldest due job once queues hold many
 * jobs, reads each priority's first due job from skiplock_jobs_claimable, where oldest_queued,
 * min(available_at) over the queued jobs, reads every one, delayed ones included (see
 * PostgresOldestQueuedPlanTest). MetricsContract holds both statements to the same answer.
 */
class SqliteOldestQueuedPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    /** 10,001 queued jobs in one queue, all the tenant's: the store reads the oldest due one by the probes. */
    @Test
    void aQueueOfManyJobsIsReadByTheProbes() {
        Skiplock producer = client();
        DelayedJobs.enqueue(producer, 5, 0);
        Job due = DelayedJobs.enqueueDue(producer, -5);
        assertThat(producer.activity()).singleElement().extracting(QueueActivity::oldestQueuedAt).isEqualTo(due.availableAt());
        assertThat(producer.activityAllTenants()).singleElement().extracting(QueueActivity::oldestQueuedAt)
                .isEqualTo(due.availableAt());
    }

    /** Each priority's due jobs are a range of the index, up to now; no step scans the table or the index whole. */
    @Test
    void theOldestQueuedJobIsReadFromEachPriorityUpToNow() throws Exception {
        List<String> plan = SqlitePlan.of(client(), "oldest_queued_by_priority", (explain, index, name, driver) -> {
            if (!name.equals("tenant")) {
                throw new IllegalStateException("oldest_queued_by_priority has a new parameter: " + name);
            }
            explain.setString(index, "default");
        });
        assertThat(plan).as("the plan").anySatisfy(step -> assertThat(step)
                .startsWith("SEARCH j USING")
                .endsWith("INDEX skiplock_jobs_claimable (queue=? AND priority=? AND available_at<?)"));
        assertThat(plan).as("the plan").noneSatisfy(step -> assertThat(step).matches("SCAN (skiplock_jobs|j)\\b.*"));
    }
}
