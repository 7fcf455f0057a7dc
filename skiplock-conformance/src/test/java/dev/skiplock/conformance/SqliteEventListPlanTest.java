package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * list_events reads a job's events as a compound select in seq order, each part along its index, so
 * a page stops at its limit. Through the view skiplock_job_event_log, SQLite sorted every event of
 * the job after the cursor first (a job of 100,000 log lines: 108 ms a page of 1,000, paging through
 * it O(N^2/1,000) rows read). EventsContract holds both databases to what it lists.
 */
class SqliteEventListPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    @Test
    void aPageOfEventsIsReadInSeqOrderWithoutASort() throws Exception {
        List<String> plan = SqlitePlan.of(client(), "events", "list_events", (explain, index, name, driver) -> {
            switch (name) {
                case "tenant" -> explain.setString(index, "default");
                case "job_id" -> driver.dialect().setUuid(explain, index, UUID.randomUUID());
                case "after_seq" -> explain.setLong(index, 0);
                case "limit" -> explain.setInt(index, 1000);
                default -> throw new IllegalStateException("list_events has a new parameter: " + name);
            }
        });
        assertThat(plan).as("the plan").anySatisfy(step -> assertThat(step).startsWith("MERGE (UNION ALL)"));
        assertThat(plan).as("the plan").anySatisfy(step -> assertThat(step)
                .isEqualTo("SEARCH skiplock_job_events USING INDEX skiplock_job_events_job (job_id=? AND seq>?)"));
        assertThat(plan).as("the plan").noneSatisfy(step -> assertThat(step).contains("TEMP B-TREE"));
    }
}
