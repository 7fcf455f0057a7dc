package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Skiplock;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * skiplock_job_throughput keeps an hour of finishes per tenant, queue and minute, keyed by tenant
 * first. The reaper's delete of the hour-old minutes (compact_job_throughput, every process, every
 * reaperInterval, under the write lock) and the overview's last 15 minutes (queue_activity) read
 * only those minutes, by the minute's index (migration 0021): without it both scanned the table.
 * PostgresThroughputPlanTest counts what PostgreSQL reads.
 */
class SqliteThroughputPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    @Test
    void theFoldAndTheOverviewReadOnlyTheMinutesTheyNeed() throws Exception {
        Skiplock client = client();
        List<String> fold = SqlitePlan.of(client, "compact_job_throughput", (explain, index, name, driver) -> {
            throw new IllegalStateException("compact_job_throughput has a parameter: " + name);
        });
        assertThat(fold).as("the fold's plan").anySatisfy(step -> assertThat(step)
                .startsWith("SEARCH skiplock_job_throughput USING").contains("skiplock_job_throughput_minute (minute<?)"));
        assertThat(fold).as("the fold's plan").noneSatisfy(step -> assertThat(step).startsWith("SCAN"));
        for (String tenant : Arrays.asList("north", null)) {
            List<String> overview = SqlitePlan.of(client, "queue_activity", (explain, index, name, driver) -> {
                if (!name.equals("tenant")) {
                    throw new IllegalStateException("queue_activity has a new parameter: " + name);
                }
                explain.setString(index, tenant);
            });
            assertThat(overview).as("the overview's plan, tenant %s", tenant).anySatisfy(step -> assertThat(step)
                    .startsWith("SEARCH skiplock_job_throughput USING").contains("skiplock_job_throughput_minute (minute>?)"));
            assertThat(overview).as("the overview's plan, tenant %s", tenant)
                    .noneSatisfy(step -> assertThat(step).startsWith("SCAN skiplock_job_throughput"));
        }
    }
}
