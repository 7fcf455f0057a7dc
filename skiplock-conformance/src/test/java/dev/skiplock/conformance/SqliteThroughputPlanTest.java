package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Skiplock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * skiplock_job_throughput keeps an hour of finishes per tenant, queue and minute, keyed by tenant
 * first. The reaper's delete of the hour-old minutes (compact_job_throughput, every process, every
 * reaperInterval, under the write lock) reads only those minutes, by the minute's index (migration
 * 0021), and the overview (queue_activity) one tenant's rows by the key: without them both scanned
 * the table. PostgresThroughputPlanTest counts what PostgreSQL reads.
 */
class SqliteThroughputPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    @Test
    void theFoldReadsOnlyTheHourOldMinutesAndTheOverviewOfATenantOnlyItsRows() throws Exception {
        Skiplock client = client();
        List<String> fold = SqlitePlan.of(client, "compact_job_throughput", (explain, index, name, driver) -> {
            throw new IllegalStateException("compact_job_throughput has a parameter: " + name);
        });
        assertThat(fold).as("the fold's plan").anySatisfy(step -> assertThat(step)
                .startsWith("SEARCH skiplock_job_throughput USING").contains("skiplock_job_throughput_minute (minute<?)"));
        assertThat(fold).as("the fold's plan").noneSatisfy(step -> assertThat(step).startsWith("SCAN"));
        List<String> overview = SqlitePlan.of(client, "queue_activity", (explain, index, name, driver) -> {
            if (!name.equals("tenant")) {
                throw new IllegalStateException("queue_activity has a new parameter: " + name);
            }
            explain.setString(index, "north");
        });
        assertThat(overview).as("the overview's plan").contains("SEARCH skiplock_job_throughput USING PRIMARY KEY (tenant=?)");
        // Every tenant's part scans the table: by the minute's index, each row would be a lookup.
        assertThat(overview).as("the overview's plan")
                .noneSatisfy(step -> assertThat(step).contains("skiplock_job_throughput_minute"));
    }
}
