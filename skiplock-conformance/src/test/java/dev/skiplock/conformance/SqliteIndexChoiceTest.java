package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.internal.sql.SqlFile;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * skiplock_jobs_by_tenant (migration 0025) holds every job by tenant and id, for list_jobs' walk of
 * one tenant's jobs. Any statement testing a tenant can use it, and SQLite took it where it reads
 * more than the index the statement was written for: list_jobs' failed and waiting parts read the
 * tenant's jobs instead of those statuses' indexes, and list_events sorted the job's events instead
 * of reading them in seq order. Every statement of SQLite's SQL files, planned on a migrated file,
 * uses it only to look a job up by tenant and id, but for list_jobs' walk.
 */
class SqliteIndexChoiceTest extends ContractBase {
    private static final List<String> FILES = List.of(
            "cron", "events", "hot_path", "jobs", "migrations", "queues", "signals", "steps", "workers");
    private static final String BY_TENANT = "skiplock_jobs_by_tenant";

    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    @Test
    void onlyTheTenantsListWalksTheJobsByTenant() throws Exception {
        String root = FastPathContract.driver(client()).resourceRoot() + "/sql/";
        int planned = 0;
        for (String file : FILES) {
            for (String statement : SqlFile.load(root + file + ".sql").statements().keySet()) {
                List<String> plan = SqlitePlan.of(client(), file, statement,
                        (explain, index, name, driver) -> explain.setObject(index, null));
                planned++;
                List<String> byTenant = plan.stream().filter(step -> step.contains(BY_TENANT)).toList();
                if (file.equals("jobs") && statement.equals("list_jobs")) {
                    assertThat(byTenant).as("list_jobs: the walk of a tenant's jobs, newest first from the cursor")
                            .containsExactlyInAnyOrder("SEARCH skiplock_jobs USING INDEX " + BY_TENANT + " (tenant=? AND id<?)",
                                    "SEARCH skiplock_jobs USING INDEX " + BY_TENANT + " (tenant=? AND id=?)");
                } else {
                    assertThat(byTenant).as("%s.sql %s: %s only to look a job up", file, statement, BY_TENANT)
                            .allSatisfy(step -> assertThat(step).endsWith("(tenant=? AND id=?)"));
                }
            }
        }
        assertThat(planned).as("statements planned").isGreaterThan(50);
    }
}
