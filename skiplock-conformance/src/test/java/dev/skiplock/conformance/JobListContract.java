package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobClient;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobPage;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * The job list against every filter it takes. Each database reads it its own way (PostgreSQL: the
 * live jobs and the history, each by its indexes; SQLite: the statuses few jobs are in, a tenant's,
 * a queue's and a kind's jobs from indexes of their own, migrations 0020, 0024 and 0025, the rest by
 * a walk of the ids), and each must list exactly
 * the jobs a filter matches, newest first, page after page.
 */
abstract class JobListContract extends ContractBase {
    private static final int PAGE = 2;

    record Work(int n) {
    }

    /**
     * 33 jobs over two tenants, three queues and three kinds, queued, cancelled, failed (a cancelled
     * dependency), succeeded, waiting and running: every status filter (none included), alone, with a queue
     * and with a kind, lists in pages of two what the jobs themselves say, for either tenant and for
     * every tenant.
     */
    @Test
    void everyFilterListsExactlyTheJobsItMatchesNewestFirstInPages() {
        Skiplock worker = started(builder(config -> config.queue("done", 1).queue("slow", 2))
                .handler("ok", Work.class, context -> JobOutcome.complete())
                .handler("hold", Work.class, context -> {
                    blockUntilInterrupted();
                    return JobOutcome.complete();
                }));
        Skiplock client = client();
        JobClient acme = client.tenant("acme");
        Map<String, JobClient> tenants = Map.of(Skiplock.DEFAULT_TENANT, client, "acme", acme);
        List<Job> enqueued = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            JobClient tenant = i % 3 == 0 ? acme : client;
            String kind = i % 2 == 0 ? "ok" : "other";
            JobRequest parked = JobRequest.of(kind, new Work(i)).withQueue("parked");
            enqueued.add(switch (i % 4) {
                case 0 -> tenant.enqueue(parked);
                case 1 -> {
                    Job job = tenant.enqueue(parked);
                    tenant.cancel(job.id());
                    yield job;
                }
                case 2 -> {
                    Job cancelled = tenant.enqueue(JobRequest.of("other", new Work(-i)).withQueue("parked"));
                    tenant.cancel(cancelled.id());
                    enqueued.add(cancelled);
                    yield tenant.enqueue(parked.withDependsOn(List.of(cancelled.id())));
                }
                default -> tenant.enqueue(JobRequest.of("ok", new Work(i)).withQueue("done"));
            });
        }
        enqueued.add(acme.enqueue(JobRequest.of("ok", new Work(100)).withQueue("parked")
                .withDependsOn(List.of(enqueued.getFirst().id()))));
        enqueued.add(acme.enqueue(JobRequest.of("hold", new Work(101)).withQueue("slow")));
        enqueued.add(client.enqueue(JobRequest.of("hold", new Work(102)).withQueue("slow")));
        for (Job job : enqueued) {
            JobClient owner = tenants.get(job.tenant());
            JobStatus settled = switch (job.queue()) {
                case "done" -> JobStatus.SUCCEEDED;
                case "slow" -> JobStatus.RUNNING;
                default -> null;
            };
            if (settled != null) {
                await().atMost(WAIT).until(() -> owner.get(job.id()).orElseThrow().status() == settled);
            }
        }
        List<Job> jobs = enqueued.stream()
                .map(job -> tenants.get(job.tenant()).get(job.id()).orElseThrow())
                .sorted(Comparator.comparing((Job job) -> job.id().toString()).reversed())
                .toList();
        assertThat(jobs).extracting(Job::status).contains(JobStatus.QUEUED, JobStatus.CANCELLED, JobStatus.FAILED,
                JobStatus.SUCCEEDED, JobStatus.WAITING, JobStatus.RUNNING);

        List<JobStatus> statuses = new ArrayList<>(Arrays.asList(JobStatus.values()));
        statuses.add(null);
        for (JobStatus status : statuses) {
            for (JobQuery query : List.of(JobQuery.all().withStatus(status),
                    JobQuery.all().withStatus(status).withQueue("parked"),
                    JobQuery.all().withStatus(status).withKind("other"))) {
                List<Job> matching = matching(jobs, query);
                for (String tenant : tenants.keySet()) {
                    List<UUID> ofTenant = ids(matching.stream().filter(job -> job.tenant().equals(tenant)).toList());
                    assertThat(ids(pages(tenants.get(tenant)::list, query))).as("%s of tenant %s", query, tenant)
                            .isEqualTo(ofTenant);
                    assertThat(JobListByIndexesCall.pages(client, tenant, query, PAGE))
                            .as("%s of tenant %s by the filters' indexes", query, tenant).isEqualTo(ofTenant);
                }
                assertThat(ids(pages(client::listAllTenants, query))).as("%s of every tenant", query)
                        .isEqualTo(ids(matching));
                assertThat(JobListByIndexesCall.pages(client, null, query, PAGE))
                        .as("%s of every tenant by the filters' indexes", query).isEqualTo(ids(matching));
            }
        }
    }

    /**
     * Queued jobs are listed alike whether few or many are queued (SQLite reads up to 10,000 from
     * their index, and walks the ids past that): 10,000 queued jobs, then 10,001, over two tenants,
     * two queues and two kinds, the first page and a page from the middle of each filter.
     */
    @Test
    void queuedJobsAreListedAlikeUpToAndPastTenThousand() {
        Skiplock client = client();
        JobClient acme = client.tenant("acme");
        Set<String> tenants = Set.of(Skiplock.DEFAULT_TENANT, "acme");
        List<Job> queued = enqueueInBatches(client, 9_990,
                i -> JobRequest.of(i % 2 == 0 ? "ok" : "other", new Work(i)).withQueue("big"));
        for (int i = 0; i < 10; i++) {
            JobClient tenant = i % 2 == 0 ? acme : client;
            queued.add(tenant.enqueue(JobRequest.of("other", new Work(-i)).withQueue(i < 5 ? "big" : "small")));
        }
        assertThat(queued).hasSize(10_000);
        assertListsQueued(client, tenants, queued);

        queued.add(acme.enqueue(JobRequest.of("ok", new Work(10_000)).withQueue("small")));
        assertListsQueued(client, tenants, queued);
    }

    /**
     * The list of a queue or a kind is alike whether it has few jobs or many (SQLite reads every
     * tenant's jobs of a queue or kind, and a tenant's of a kind within a queue, from an index up to
     * 10,000 of them, and walks past that): 10,000 jobs of queue {@code big} and kind {@code bulk}
     * over two tenants, beside a few of queue {@code small} and kinds {@code rare} and {@code other},
     * then 10,001; then the default tenant's own 10,000 and 10,001 of them. The first page and a page
     * from the middle of each filter, with and without the queued status they all have, for every
     * tenant and for each.
     */
    @Test
    void listsOfAQueueOrKindAreAlikeUpToAndPastTenThousand() {
        Skiplock client = client();
        JobClient acme = client.tenant("acme");
        Set<String> tenants = Set.of(Skiplock.DEFAULT_TENANT, "acme");
        List<Job> jobs = enqueueInBatches(client, 9_990, i -> JobRequest.of("bulk", new Work(i)).withQueue("big"));
        for (int i = 0; i < 16; i++) {
            JobClient tenant = i % 2 == 0 ? acme : client;
            jobs.add(tenant.enqueue(i < 10 ? JobRequest.of("bulk", new Work(-i)).withQueue("big")
                    : JobRequest.of(i < 13 ? "rare" : "other", new Work(-i)).withQueue("small")));
        }
        assertThat(jobs).filteredOn(job -> job.queue().equals("big")).hasSize(10_000);
        assertThat(jobs).filteredOn(job -> job.kind().equals("bulk")).hasSize(10_000);
        assertListsAlike(client, tenants, jobs);

        jobs.add(acme.enqueue(JobRequest.of("bulk", new Work(10_000)).withQueue("big")));
        assertListsAlike(client, tenants, jobs);

        for (int i = 0; i < 5; i++) {
            jobs.add(client.enqueue(JobRequest.of("bulk", new Work(10_001 + i)).withQueue("big")));
        }
        assertThat(jobs).filteredOn(job -> job.kind().equals("bulk") && job.tenant().equals(Skiplock.DEFAULT_TENANT))
                .hasSize(10_000);
        assertListsAlike(client, tenants, jobs);

        jobs.add(client.enqueue(JobRequest.of("bulk", new Work(10_006)).withQueue("big")));
        assertListsAlike(client, tenants, jobs);
    }

    /**
     * Every tenant's list is alike however many tenants there are (PostgreSQL reads a filtered
     * history tenant by tenant up to 100 tenants, and walks the history past that): 101 tenants
     * with a cancelled job of queue {@code a} and kind {@code x} and a queued one of queue {@code b}
     * each, then 100 once one cancelled job is deleted; every page of each filter.
     */
    @Test
    void everyTenantsListIsAlikeUpToAndPastAHundredTenants() {
        Skiplock client = client();
        List<Job> jobs = new ArrayList<>();
        for (int t = 0; t <= 100; t++) {
            JobClient tenant = client.tenant("t%03d".formatted(t));
            jobs.add(tenant.cancel(tenant.enqueue(JobRequest.of("x", new Work(t)).withQueue("a")).id()));
            jobs.add(tenant.enqueue(JobRequest.of("y", new Work(-t)).withQueue("b")));
        }
        assertListsEveryTenantsPages(client, jobs);

        Job deleted = jobs.getFirst();
        client.tenant(deleted.tenant()).delete(deleted.id());
        jobs.remove(deleted);
        assertListsEveryTenantsPages(client, jobs);
    }

    /**
     * Every tenant's list of a queue or kind past 10,000 jobs is alike however many tenants have
     * them (SQLite reads each tenant's newest from skiplock_jobs_by_queue or skiplock_jobs_by_kind
     * up to 100 tenants, and walks the ids past that): 100 tenants with 102 jobs of queue
     * {@code wide} each, one of kind {@code b} and the rest of kind {@code a} (10,200 and 10,100), then
     * a 101st tenant's; the first page of 100 and a page from the middle of each filter, with and
     * without the queued status they all have.
     */
    @Test
    void everyTenantsListOfALargeQueueIsAlikeUpToAndPastAHundredTenants() {
        Skiplock client = client();
        List<Job> jobs = new ArrayList<>();
        for (int t = 0; t < 100; t++) {
            List<JobRequest> batch = new ArrayList<>();
            for (int i = 0; i < 102; i++) {
                batch.add(JobRequest.of(i == 0 ? "b" : "a", new Work(i)).withQueue("wide"));
            }
            jobs.addAll(client.tenant("t%03d".formatted(t)).enqueueMany(batch));
        }
        assertListsEveryTenantsPagesOfWide(client, jobs);

        jobs.add(client.tenant("t100").enqueue(JobRequest.of("a", new Work(-1)).withQueue("wide")));
        assertListsEveryTenantsPagesOfWide(client, jobs);
    }

    private static void assertListsEveryTenantsPagesOfWide(Skiplock client, List<Job> jobs) {
        List<Job> newestFirst = newestFirst(jobs);
        UUID middle = newestFirst.get(newestFirst.size() / 2).id();
        for (JobQuery query : List.of(JobQuery.all().withQueue("wide"), JobQuery.all().withKind("a"),
                JobQuery.all().withQueue("wide").withKind("b"))) {
            for (JobQuery filtered : List.of(query.withLimit(100), query.withStatus(JobStatus.QUEUED).withLimit(100))) {
                for (UUID cursor : Arrays.asList(null, middle)) {
                    assertPage(client, null, filtered.withCursor(cursor), below(matching(newestFirst, query), cursor),
                            "%s from %s of every tenant, %d jobs".formatted(filtered, cursor, jobs.size()));
                }
            }
        }
    }

    private static void assertListsEveryTenantsPages(Skiplock client, List<Job> jobs) {
        List<Job> newestFirst = newestFirst(jobs);
        for (JobQuery query : List.of(JobQuery.all(), JobQuery.all().withStatus(JobStatus.CANCELLED),
                JobQuery.all().withQueue("a"), JobQuery.all().withKind("x"), JobQuery.all().withQueue("b"),
                JobQuery.all().withStatus(JobStatus.CANCELLED).withKind("y"))) {
            List<Job> matching = matching(newestFirst, query);
            assertThat(ids(pages(client::listAllTenants, query))).as("%s of %d jobs", query, jobs.size())
                    .isEqualTo(ids(matching));
            assertThat(JobListByIndexesCall.pages(client, null, query, PAGE))
                    .as("%s of %d jobs by the filters' indexes", query, jobs.size()).isEqualTo(ids(matching));
        }
    }

    /** The first page of 100 and a page from the middle, by queue and by kind, of every tenant and of each, as {@code jobs} says. */
    private static void assertListsAlike(Skiplock client, Set<String> tenants, List<Job> jobs) {
        List<Job> newestFirst = newestFirst(jobs);
        UUID middle = newestFirst.get(newestFirst.size() / 2).id();
        for (JobQuery query : List.of(JobQuery.all().withQueue("big"), JobQuery.all().withQueue("small"),
                JobQuery.all().withKind("bulk"), JobQuery.all().withKind("rare"),
                JobQuery.all().withQueue("big").withKind("bulk"), JobQuery.all().withQueue("small").withKind("other"),
                JobQuery.all().withQueue("big").withKind("rare"))) {
            List<Job> matching = matching(newestFirst, query);
            for (JobQuery filtered : List.of(query.withLimit(100), query.withStatus(JobStatus.QUEUED).withLimit(100))) {
                for (UUID cursor : Arrays.asList(null, middle)) {
                    List<Job> below = below(matching, cursor);
                    assertPage(client, null, filtered.withCursor(cursor), below,
                            "%s from %s of every tenant, %d jobs".formatted(filtered, cursor, jobs.size()));
                    for (String tenant : tenants) {
                        assertPage(client, tenant, filtered.withCursor(cursor), below,
                                "%s from %s of tenant %s, %d jobs".formatted(filtered, cursor, tenant, jobs.size()));
                    }
                }
            }
        }
    }

    /** The queued jobs' first page of 100 and a page from the middle, by each filter, as {@code queued} says. */
    private static void assertListsQueued(Skiplock client, Set<String> tenants, List<Job> queued) {
        List<Job> newestFirst = newestFirst(queued);
        UUID middle = newestFirst.get(newestFirst.size() / 2).id();
        for (JobQuery query : List.of(JobQuery.all(), JobQuery.all().withQueue("small"), JobQuery.all().withKind("other"),
                JobQuery.all().withQueue("big").withKind("ok"))) {
            JobQuery queuedOnly = query.withStatus(JobStatus.QUEUED).withLimit(100);
            List<Job> matching = matching(newestFirst, query);
            for (UUID cursor : Arrays.asList(null, middle)) {
                List<Job> below = below(matching, cursor);
                for (String tenant : tenants) {
                    assertPage(client, tenant, queuedOnly.withCursor(cursor), below,
                            "%s from %s of tenant %s, %d queued".formatted(queuedOnly, cursor, tenant, queued.size()));
                }
                assertPage(client, null, queuedOnly.withCursor(cursor), below,
                        "%s from %s of every tenant, %d queued".formatted(queuedOnly, cursor, queued.size()));
            }
        }
    }

    /**
     * {@code tenant}'s page of {@code query} (null: every tenant's) is the newest {@code query.limit()}
     * of {@code below} (the tenant's), as the list gives it and as the read by the filters' indexes
     * alone does (the list's newest jobs often fill these pages).
     */
    private static void assertPage(Skiplock client, String tenant, JobQuery query, List<Job> below, String description) {
        List<Job> ofTenant = below.stream().filter(job -> tenant == null || job.tenant().equals(tenant)).toList();
        List<UUID> expected = ids(ofTenant.subList(0, Math.min(query.limit(), ofTenant.size())));
        JobPage page = tenant == null ? client.listAllTenants(query) : client.tenant(tenant).list(query);
        assertThat(ids(page.jobs())).as(description).isEqualTo(expected);
        assertThat(JobListByIndexesCall.page(client, tenant, query)).as("%s, by the filters' indexes", description)
                .isEqualTo(expected);
    }

    /** {@code count} jobs of the default tenant, {@code request(i)} the i-th, enqueued 999 at a time. */
    private static List<Job> enqueueInBatches(Skiplock client, int count, IntFunction<JobRequest> request) {
        List<Job> jobs = new ArrayList<>();
        for (int from = 0; from < count; from += 999) {
            List<JobRequest> batch = new ArrayList<>();
            for (int i = from; i < Math.min(count, from + 999); i++) {
                batch.add(request.apply(i));
            }
            jobs.addAll(client.enqueueMany(batch));
        }
        return jobs;
    }

    /** {@code jobs} newest first: in the order of their ids' text, as the list pages. */
    private static List<Job> newestFirst(List<Job> jobs) {
        return jobs.stream().sorted(Comparator.comparing((Job job) -> job.id().toString()).reversed()).toList();
    }

    /** The jobs of {@code jobs} that {@code query}'s status, queue and kind match, in their order. */
    private static List<Job> matching(List<Job> jobs, JobQuery query) {
        return jobs.stream().filter(job -> (query.status() == null || job.status() == query.status())
                && (query.queue() == null || job.queue().equals(query.queue()))
                && (query.kind() == null || job.kind().equals(query.kind()))).toList();
    }

    /** The jobs of {@code jobs} below {@code cursor} (all of them without one). */
    private static List<Job> below(List<Job> jobs, UUID cursor) {
        return jobs.stream().filter(job -> cursor == null || job.id().toString().compareTo(cursor.toString()) < 0).toList();
    }

    /** Every page of {@code query} (its limit set to two), following each page's cursor. */
    private static List<Job> pages(Function<JobQuery, JobPage> list, JobQuery query) {
        List<Job> listed = new ArrayList<>();
        JobPage page = list.apply(query.withLimit(PAGE));
        listed.addAll(page.jobs());
        while (page.nextCursor() != null) {
            assertThat(listed).as("pages of %s: a list that came back to jobs it had listed", query).hasSizeLessThan(1_000);
            page = list.apply(query.withLimit(PAGE).withCursor(page.nextCursor()));
            listed.addAll(page.jobs());
        }
        return listed;
    }

    private static List<UUID> ids(List<Job> jobs) {
        return jobs.stream().map(Job::id).toList();
    }
}
