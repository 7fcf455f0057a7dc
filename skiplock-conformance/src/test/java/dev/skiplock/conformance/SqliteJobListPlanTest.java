package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.JobClient;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.sqlite.ProgressHandler;
import org.sqlite.SQLiteConnection;

/**
 * SQLite's job list reads a status few jobs are in from its own index: failed, timed_out and
 * cancelled from skiplock_jobs_unsuccessful (migration 0020), waiting and running from theirs,
 * where it walked the whole history newest first to find them (300,000 finished jobs, 27 of them
 * failed: 90 ms a page); queued jobs, up to 10,000 of the queue, from skiplock_jobs_claimable alone
 * (read once), then by their ids in order. A tenant's jobs of one queue or kind come from
 * skiplock_jobs_by_queue and skiplock_jobs_by_kind (migration 0024), where a rare one walked every
 * tenant's history; its other jobs from skiplock_jobs_by_tenant (0025), where a tenant with few jobs
 * among another's many walked them all; a kind's within a queue, up to 10,000, by their ids from
 * skiplock_jobs_by_kind alone. Every tenant's list reads up to 10,000 ids of a queue or kind from
 * those indexes alone, where it walked every job to find a rare one's; past 10,000 (a queue or a
 * kind alone), each tenant's newest ids from the same index alone, up to 100 tenants found one probe
 * each, where it walked the ids. Each
 * part's index search delivers ids in order but the running jobs' and, in every tenant's list, the
 * tenants' newest, which are sorted. JobListContract holds both databases to what the list returns.
 */
class SqliteJobListPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    record Work(int n) {
    }

    /**
     * Every tenant's list of a queue past 10,000 jobs, behind 20,000 newer jobs of another queue,
     * reads each tenant's newest ids of the queue (up to 100 tenants) rather than walking the newer
     * jobs: 10,001 jobs of queue {@code wide} over two tenants, then 50,000 of {@code other}; the
     * statement that reads by the filters' indexes (the store's second, as the newest 500 jobs hold
     * none of the queue) takes fewer than 250,000 of SQLite's virtual machine steps, counted by a
     * progress handler (about 194,000, most of them counting the queue's first 10,001 ids; the walk
     * of build 7ee4fd3 took 522,000).
     */
    @Test
    void everyTenantsListOfALargeQueueBehindANewerOneReadsEachTenantsNewestIds() throws Exception {
        Skiplock client = client();
        List<Job> wide = new ArrayList<>();
        for (int from = 0; from < 10_001; from += 1_000) {
            JobClient tenant = client.tenant(from % 2_000 == 0 ? "acme" : Skiplock.DEFAULT_TENANT);
            wide.addAll(tenant.enqueueMany(IntStream.range(from, Math.min(10_001, from + 1_000))
                    .mapToObj(i -> JobRequest.of("work", new Work(i)).withQueue("wide")).toList()));
        }
        for (int from = 0; from < 50_000; from += 1_000) {
            client.enqueueMany(IntStream.range(from, from + 1_000)
                    .mapToObj(i -> JobRequest.of("work", new Work(i)).withQueue("other")).toList());
        }
        JobQuery ofWide = JobQuery.all().withQueue("wide").withLimit(50);

        long[] thousands = {0};
        List<UUID> page;
        try (Connection connection = client.dataSource().getConnection()) {
            Connection sqlite = connection.unwrap(SQLiteConnection.class);
            ProgressHandler.setHandler(sqlite, 1_000, new ProgressHandler() {
                @Override
                protected int progress() {
                    thousands[0]++;
                    return 0;
                }
            });
            try {
                page = JobListByIndexesCall.page(connection, FastPathContract.driver(client), null, ofWide);
            } finally {
                ProgressHandler.clearHandler(sqlite);
            }
        }
        assertThat(page).isEqualTo(wide.stream().map(Job::id)
                .sorted(Comparator.comparing(UUID::toString).reversed()).limit(50).toList());
        assertThat(thousands[0]).as("thousands of virtual machine steps").isLessThan(250);
    }

    @Test
    void bothListsReadTheStatusesFewJobsAreInFromTheirIndexes() throws Exception {
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
            assertThat(plan).as("the plan of %s", statement)
                    .contains("SEARCH skiplock_jobs USING INDEX skiplock_jobs_unsuccessful (status=? AND id<?)",
                            "SEARCH skiplock_jobs USING INDEX skiplock_jobs_waiting (id<?)",
                            "SCAN skiplock_jobs USING INDEX skiplock_jobs_running",
                            "MATERIALIZE queued",
                            "SEARCH skiplock_jobs USING COVERING INDEX skiplock_jobs_claimable (queue>? AND queue<?)");
            if (statement.equals("list_jobs_all_tenants")) {
                assertThat(plan).as("the plan of %s: every tenant's jobs by their ids", statement)
                        .contains("SEARCH skiplock_jobs USING INDEX sqlite_autoindex_skiplock_jobs_1 (id=?)",
                                "SEARCH skiplock_jobs USING INDEX sqlite_autoindex_skiplock_jobs_1 (id<?)");
                assertThat(plan).as("the plan of %s: a queue's or a kind's ids from their indexes alone", statement)
                        .contains("MATERIALIZE named",
                                "SEARCH skiplock_jobs USING COVERING INDEX skiplock_jobs_by_queue (queue=?)",
                                "SEARCH skiplock_jobs USING COVERING INDEX skiplock_jobs_by_kind (kind=?)");
                assertThat(plan).as("the plan of %s: past 10,000, the tenants one probe each, then each one's"
                        + " newest from the same index", statement)
                        .contains("MATERIALIZE tenants",
                                "SEARCH skiplock_jobs USING COVERING INDEX skiplock_jobs_by_queue (queue=? AND tenant>?)",
                                "SEARCH skiplock_jobs USING COVERING INDEX skiplock_jobs_by_kind (kind=? AND tenant>?)",
                                "SEARCH skiplock_jobs USING COVERING INDEX skiplock_jobs_by_queue (queue=? AND tenant=? AND id<?)",
                                "SEARCH skiplock_jobs USING COVERING INDEX skiplock_jobs_by_kind (kind=? AND tenant=? AND id<?)",
                                "SEARCH newest USING COVERING INDEX skiplock_jobs_by_queue (queue=? AND tenant=? AND id>? AND id<?)",
                                "SEARCH newest USING COVERING INDEX skiplock_jobs_by_kind (kind=? AND tenant=? AND id>? AND id<?)");
            } else {
                assertThat(plan).as("the plan of %s: the tenant's jobs by their index (0025)", statement)
                        .contains("SEARCH skiplock_jobs USING INDEX skiplock_jobs_by_tenant (tenant=? AND id=?)",
                                "SEARCH skiplock_jobs USING INDEX skiplock_jobs_by_tenant (tenant=? AND id<?)")
                        .noneMatch(step -> step.contains("sqlite_autoindex_skiplock_jobs_1 (id<?)"));
                assertThat(plan).as("the plan of %s: a queue's and a kind's jobs by their indexes (0024)", statement)
                        .contains("SEARCH skiplock_jobs USING INDEX skiplock_jobs_by_queue (queue=? AND tenant=? AND id<?)",
                                "SEARCH skiplock_jobs USING INDEX skiplock_jobs_by_kind (kind=? AND tenant=? AND id<?)");
                assertThat(plan).as("the plan of %s: a kind's ids within a queue from their index alone", statement)
                        .contains("MATERIALIZE of_kind",
                                "SEARCH skiplock_jobs USING COVERING INDEX skiplock_jobs_by_kind (kind=? AND tenant=?)");
                assertThat(plan).as("the plan of %s: no part reads every job of a queue or kind", statement)
                        .noneMatch(step -> step.endsWith("(queue=?)") || step.endsWith("(kind=?)"));
            }
            assertThat(plan).as("the plan of %s: no other scan of the jobs", statement)
                    .filteredOn(step -> step.startsWith("SCAN skiplock_jobs"))
                    .containsExactly("SCAN skiplock_jobs USING INDEX skiplock_jobs_running");
            assertThat(plan).as("the plan of %s: only the running jobs sorted, and every tenant's list's"
                    + " tenants' newest of a queue and of a kind", statement)
                    .filteredOn(step -> step.contains("TEMP B-TREE"))
                    .hasSize(statement.equals("list_jobs") ? 1 : 3).containsOnly("USE TEMP B-TREE FOR ORDER BY");
        }
    }
}
