package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.internal.Uuid7;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SQLite prunes the history under its one write lock, so a prune that walked the whole history to
 * find fewer jobs than its batch held every writer up (0.3 s a million jobs, issue #12): its walk
 * is a range of the primary key, up to the jobs enqueued before the cutoff. FastPathContract holds
 * both databases to the bound itself; PostgresRetentionPlanTest counts what PostgreSQL reads.
 */
class SqliteRetentionPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    /** Without the bound the plan was {@code SCAN skiplock_jobs USING INDEX ...}: the key from its start to its end. */
    @Test
    void thePrunesWalkIsARangeOfThePrimaryKey() throws Exception {
        List<String> plan = SqlitePlan.of(client(), "prune_finished", (explain, index, name, driver) -> {
            switch (name) {
                case "age_ms" -> explain.setLong(index, 3_600_000);
                case "limit" -> explain.setInt(index, 1_000);
                case "enqueued_before" -> driver.dialect().setUuid(explain, index,
                        Uuid7.floor(System.currentTimeMillis() - 3_600_000));
                default -> throw new IllegalStateException("prune_finished has a new parameter: " + name);
            }
        });
        assertThat(plan).as("the plan").anySatisfy(step -> assertThat(step).startsWith("SEARCH skiplock_jobs USING")
                .contains("(id<?)"));
        assertThat(plan).as("the plan").noneSatisfy(step -> assertThat(step).startsWith("SCAN skiplock_jobs"));
    }
}
