package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.internal.sql.SqlFile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * skiplock_jobs_by_tenant (migration 0025) holds every job by tenant and id, for list_jobs' walk of
 * one tenant's jobs. Any statement testing a tenant can use it, and SQLite took it where it reads
 * more than the index the statement was written for: list_jobs' failed and waiting parts read the
 * tenant's jobs instead of those statuses' indexes, and list_events sorted the job's events instead
 * of reading them in seq order. Every statement of SQLite's SQL files and skiplock-testing's, planned
 * on a migrated file, uses it only to look a job up by tenant and id, but for list_jobs' walk, and
 * list_events not at all.
 */
class SqliteIndexChoiceTest extends ContractBase {
    private static final List<String> FILES = List.of(
            "cron", "events", "hot_path", "jobs", "migrations", "queues", "signals", "steps", "workers");
    private static final String TESTING_KIT = "dev/skiplock/testing/sqlite.sql";
    private static final String BY_TENANT = "skiplock_jobs_by_tenant";

    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    @Test
    void onlyTheTenantsListWalksTheJobsByTenant() throws Exception {
        String root = FastPathContract.driver(client()).resourceRoot() + "/sql/";
        List<String> resources = new ArrayList<>(FILES.stream().map(file -> root + file + ".sql").toList());
        resources.add(TESTING_KIT);
        int planned = 0;
        for (String resource : resources) {
            for (String statement : SqlFile.load(resource).statements().keySet()) {
                List<String> plan = SqlitePlan.ofResource(client(), resource, statement,
                        (explain, index, name, driver) -> explain.setObject(index, null));
                planned++;
                List<String> byTenant = plan.stream().filter(step -> step.contains(BY_TENANT)).toList();
                String where = resource.substring(resource.lastIndexOf('/') + 1) + " " + statement;
                if (where.equals("jobs.sql list_jobs")) {
                    assertThat(byTenant).as("list_jobs: the walk of a tenant's jobs, newest first from the cursor")
                            .containsExactlyInAnyOrder("SEARCH skiplock_jobs USING INDEX " + BY_TENANT + " (tenant=? AND id<?)",
                                    "SEARCH skiplock_jobs USING INDEX " + BY_TENANT + " (tenant=? AND id=?)");
                } else if (where.equals("events.sql list_events")) {
                    assertThat(byTenant).as("list_events: the job found by its id, its events then read in seq order")
                            .isEmpty();
                } else {
                    assertThat(byTenant).as("%s: %s only to look a job up", where, BY_TENANT)
                            .allSatisfy(step -> assertThat(step).endsWith("(tenant=? AND id=?)"));
                }
            }
        }
        assertThat(planned).as("statements planned").isGreaterThan(50);
    }
}
