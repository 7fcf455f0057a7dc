package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Skiplock;
import dev.skiplock.internal.Uuid7;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.spi.Driver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
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
        Skiplock client = client();
        Driver driver = FastPathContract.driver(client);
        NamedStatement prune = SqlFile.load(driver.resourceRoot() + "/sql/jobs.sql").get("prune_finished");
        List<String> plan = new ArrayList<>();
        try (Connection connection = client.dataSource().getConnection();
                PreparedStatement explain = connection.prepareStatement("EXPLAIN QUERY PLAN " + prune.jdbcSql())) {
            List<String> names = prune.parameters();
            for (int i = 0; i < names.size(); i++) {
                switch (names.get(i)) {
                    case "age_ms" -> explain.setLong(i + 1, 3_600_000);
                    case "limit" -> explain.setInt(i + 1, 1_000);
                    case "enqueued_before" -> driver.dialect().setUuid(explain, i + 1,
                            Uuid7.floor(System.currentTimeMillis() - 3_600_000));
                    default -> throw new IllegalStateException("prune_finished has a new parameter: " + names.get(i));
                }
            }
            try (ResultSet rows = explain.executeQuery()) {
                while (rows.next()) {
                    plan.add(rows.getString("detail"));
                }
            }
        }
        assertThat(plan).as("the plan").anySatisfy(step -> assertThat(step).startsWith("SEARCH skiplock_jobs USING")
                .contains("(id<?)"));
        assertThat(plan).as("the plan").noneSatisfy(step -> assertThat(step).startsWith("SCAN skiplock_jobs"));
    }
}
