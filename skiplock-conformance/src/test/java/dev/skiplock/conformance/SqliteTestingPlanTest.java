package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * skiplock-testing's drain polls whether its queues still hold a running or an available job
 * (busy_jobs, every few milliseconds of a test's drain): SQLite counts them from the running and
 * claimable partial indexes. Written as one test on the queue, it read every job of the queue,
 * finished ones too, by skiplock_jobs_by_queue once migration 0024 had made that index.
 */
class SqliteTestingPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    @Test
    void theDrainsPollCountsTheLiveJobsFromTheirIndexes() throws Exception {
        List<String> plan = SqlitePlan.ofResource(client(), "dev/skiplock/testing/sqlite.sql", "busy_jobs",
                (explain, index, name, driver) -> {
                    if (!name.equals("queues")) {
                        throw new IllegalStateException("busy_jobs has a new parameter: " + name);
                    }
                    explain.setString(index, "[\"default\"]");
                });
        assertThat(plan).filteredOn(step -> step.contains("skiplock_jobs ")).as("the jobs' reads")
                .containsExactly("SEARCH skiplock_jobs USING COVERING INDEX skiplock_jobs_running (queue=?)",
                        "SEARCH skiplock_jobs USING COVERING INDEX skiplock_jobs_claimable (queue=?)");
    }
}
