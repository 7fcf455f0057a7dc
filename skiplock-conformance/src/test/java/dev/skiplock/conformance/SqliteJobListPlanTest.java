package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SQLite's job list reads a status jobs rarely end in (failed, timed_out, cancelled) from
 * skiplock_jobs_unsuccessful (migration 0020), where it walked the whole history newest first to
 * find them: 300,000 finished jobs, 27 of them failed, 90 ms a page. JobListContract holds both
 * databases to what the list returns.
 */
class SqliteJobListPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    @Test
    void bothListsReadTheJobsThatEndedWithoutSuccessFromTheirIndex() throws Exception {
        for (String statement : List.of("list_jobs", "list_jobs_all_tenants")) {
            List<String> plan = SqlitePlan.of(client(), statement, (explain, index, name, driver) -> {
                switch (name) {
                    case "tenant" -> explain.setString(index, "default");
                    case "status" -> explain.setString(index, "failed");
                    case "queue", "kind", "cursor" -> explain.setString(index, null);
                    case "limit" -> explain.setInt(index, 50);
                    default -> throw new IllegalStateException(statement + " has a new parameter: " + name);
                }
            });
            assertThat(plan).as("the plan of %s", statement).anySatisfy(step -> assertThat(step)
                    .isEqualTo("SEARCH skiplock_jobs USING INDEX skiplock_jobs_unsuccessful (status=? AND id<?)"));
            assertThat(plan).as("the plan of %s", statement).noneSatisfy(step -> assertThat(step).startsWith("SCAN skiplock_jobs"));
        }
    }
}
