package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * SQLite claims under its one write lock, so a claim that read every job not yet due of a priority
 * to reach the next priority's due jobs (or to find none) held every writer up: 500,000 jobs
 * delayed by a day, nothing due, 42-46 ms a claim (issue #12). It reads the queue one priority at a
 * time, and in each the range of due jobs. ClaimFloorContract holds both databases to the claim
 * order over delayed jobs; PostgresClaimPlanTest counts what PostgreSQL reads.
 */
class SqliteClaimPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    /**
     * The due jobs of a priority are a range of skiplock_jobs_claimable, up to now. Before, the plan
     * had one search by queue alone ({@code (queue=?)}), whose walk in claim order met the delayed
     * jobs of each priority before the next priority's.
     */
    @Test
    void theClaimReadsEachPriorityUpToNow() throws Exception {
        List<String> plan = SqlitePlan.of(client(), "claim_jobs", (explain, index, name, driver) -> {
            switch (name) {
                case "queue" -> explain.setString(index, "default");
                case "worker" -> explain.setString(index, "worker-1");
                case "host" -> explain.setString(index, "host-1");
                case "token" -> driver.dialect().setUuid(explain, index, UUID.randomUUID());
                case "lease_ms" -> explain.setLong(index, 60_000);
                case "resumable_kinds" -> explain.setString(index, "[]");
                case "limit" -> explain.setInt(index, 100);
                default -> throw new IllegalStateException("claim_jobs has a new parameter: " + name);
            }
        });
        assertThat(plan).as("the plan").anySatisfy(step -> assertThat(step)
                .startsWith("SEARCH skiplock_jobs USING")
                .endsWith("INDEX skiplock_jobs_claimable (queue=? AND priority=? AND available_at<?)"));
        assertThat(plan).as("the plan").noneSatisfy(step -> assertThat(step).matches("SCAN (skiplock_jobs|due)\\b.*"));
    }

    /** The read of the claimed jobs after the claim's commit finds each by its key: it walks no index of running jobs. */
    @Test
    void theReadOfTheClaimedJobsFindsEachByItsKey() throws Exception {
        List<String> plan = SqlitePlan.of(client(), "read_claimed_jobs", (explain, index, name, driver) -> {
            switch (name) {
                case "ids" -> explain.setString(index, "[\"" + UUID.randomUUID() + "\"]");
                case "token" -> driver.dialect().setUuid(explain, index, UUID.randomUUID());
                default -> throw new IllegalStateException("read_claimed_jobs has a new parameter: " + name);
            }
        });
        assertThat(plan).as("the plan").anySatisfy(step -> assertThat(step)
                .isEqualTo("SEARCH skiplock_jobs USING INDEX sqlite_autoindex_skiplock_jobs_1 (id=?)"));
        assertThat(plan).as("the plan").noneSatisfy(step -> assertThat(step).matches("SCAN skiplock_jobs\\b.*"));
    }
}
