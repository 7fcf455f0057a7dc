package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobClient;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.QueueActivity;
import dev.skiplock.QueueCount;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.JobStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Micrometer meters (README "Metrics") with their {@code queue} and {@code kind} tags, and the job
 * counts that GET /queues, the dashboard and the depth gauges read from {@code skiplock_job_counts}
 * (migration 0011; on PostgreSQL also the folded sums, {@code skiplock_job_counts_folded}, 0022)
 * instead of counting the jobs: after every kind of transition they agree with a count over the
 * jobs themselves.
 */
abstract class MetricsContract extends ContractBase {
    record Work(String name) {
    }

    @Test
    void outcomesTimesAttemptsAndWakeUpsAreMeteredPerQueueAndKind() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Skiplock skiplock = started(builder(config -> config.queue("default", 2)).meterRegistry(registry)
                .handler("ok", Work.class, context -> JobOutcome.complete())
                .handler("flaky", Work.class, context -> context.attempt() == 1
                        ? JobOutcome.fail("first attempt fails") : JobOutcome.complete())
                .handler("doomed", Work.class, context -> JobOutcome.fail("always")));
        assertThat(registry.find("skiplock.jobs.claimed").counters()).as("the warm-up counts on counters of its own")
                .allSatisfy(counter -> assertThat(counter.count()).isZero());
        assertThat(registry.find("skiplock.jobs.succeeded").counters()).isEmpty();
        assertThat(registry.find("skiplock.jobs.claimed").tag("queue", "skiplock.warmup").counters()).isEmpty();
        assertThat(skiplock.metrics().claimStatements()).isZero();
        assertThat(skiplock.metrics().completionBatches()).isZero();
        Job ok = skiplock.enqueue(JobRequest.of("ok", new Work("a")));
        Job flaky = skiplock.enqueue(JobRequest.of("flaky", new Work("b")).withMaxAttempts(2));
        Job doomed = skiplock.enqueue(JobRequest.of("doomed", new Work("c")).withMaxAttempts(2));
        for (Job job : List.of(ok, flaky, doomed)) {
            awaitTerminal(skiplock, job.id());
        }
        awaitCount(() -> (long) registry.get("skiplock.job.attempts").tag("kind", "doomed").summary().count(), 1);

        assertThat(counter(registry, "skiplock.jobs.succeeded", "ok")).isEqualTo(1);
        assertThat(counter(registry, "skiplock.jobs.succeeded", "flaky")).isEqualTo(1);
        assertThat(counter(registry, "skiplock.jobs.retried", "flaky")).isEqualTo(1);
        assertThat(counter(registry, "skiplock.jobs.retried", "doomed")).isEqualTo(1);
        assertThat(counter(registry, "skiplock.jobs.failed", "doomed")).isEqualTo(1);
        assertThat(registry.get("skiplock.jobs.claimed").tag("queue", "default").counter().count()).isEqualTo(5);
        assertThat(registry.get("skiplock.job.wait").tags("queue", "default", "kind", "ok").timer().count()).isEqualTo(1);
        assertThat(registry.get("skiplock.job.run").tags("queue", "default", "kind", "flaky").timer().count())
                .isEqualTo(2);
        assertThat(registry.get("skiplock.job.attempts").tags("queue", "default", "kind", "ok").summary().totalAmount())
                .isEqualTo(1);
        assertThat(registry.get("skiplock.job.attempts").tags("queue", "default", "kind", "flaky").summary().totalAmount())
                .isEqualTo(2);
        assertThat(registry.get("skiplock.job.attempts").tags("queue", "default", "kind", "doomed").summary().totalAmount())
                .isEqualTo(2);
        assertThat(registry.get("skiplock.completer.batch.size").summary().totalAmount()).isEqualTo(5);
        assertThat(registry.get("skiplock.claim.batch.size").tag("queue", "default").summary().totalAmount())
                .isEqualTo(5);
        // The enqueues rang the claimer's doorbell; with nothing left, its 100 ms waits time out.
        await().atMost(WAIT).until(() -> registry.get("skiplock.claimer.wakeups")
                .tags("queue", "default", "cause", "poll").counter().count() >= 1);
        assertThat(registry.get("skiplock.claimer.wakeups").tags("queue", "default", "cause", "notification")
                .counter().count()).isGreaterThanOrEqualTo(1);
        assertThat(skiplock.metrics().succeeded()).isEqualTo(2);

        // The gauges read from the database follow at the next reaper run.
        await().atMost(WAIT).until(() -> gauge(registry, "skiplock.jobs", "status", "succeeded") == 2
                && gauge(registry, "skiplock.jobs", "status", "failed") == 1);
        assertThat(gauge(registry, "skiplock.workers", "status", "active")).isGreaterThanOrEqualTo(1);
    }

    /**
     * The workers gauge counts every row of the registry, not the 500 the workers list shows, and a
     * status with none reads 0 rather than vanishing. Before, 501 stopped workers read 500 (or
     * fewer, behind the active ones), and the stale series did not exist.
     */
    @Test
    void theWorkersGaugeCountsTheWholeRegistry() {
        Skiplock client = client();
        boolean postgres = client.driverName().equals("postgres");
        for (int i = 0; i < 501; i++) {
            Jdbc.update(client.dataSource(), "INSERT INTO skiplock_workers (id, host, pid, queues, concurrency, stopped_at)"
                    + " VALUES (?, 'gone', 1, " + (postgres ? "'[]'::jsonb, 1, now())" : "'[]', 1,"
                    + " CAST(unixepoch('subsec') * 1000 AS INTEGER))"), "stopped-" + i);
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        started(builder(config -> config.queue("default", 1)).meterRegistry(registry));

        await().atMost(WAIT).until(() -> gauge(registry, "skiplock.workers", "status", "stopped") == 501);
        assertThat(gauge(registry, "skiplock.workers", "status", "active")).isEqualTo(1);
        assertThat(gauge(registry, "skiplock.workers", "status", "stale")).isZero();
    }

    /**
     * Jobs of kinds this instance has no handler for share one {@code kind} label: a caller that
     * enqueues kinds of its choosing cannot add meters without bound (each (queue, kind) adds about
     * 165 series to a scrape, kept for the process's life). Before, every kind got its own.
     */
    @Test
    void kindsWithoutAHandlerShareOneKindLabel() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Skiplock worker = started(builder(config -> config.queue("default", 2)).meterRegistry(registry)
                .handler("known", com.fasterxml.jackson.databind.JsonNode.class, context -> JobOutcome.complete()));
        for (int i = 0; i < 5; i++) {
            worker.enqueue(JobRequest.of("made-up-" + i, null).withMaxAttempts(1));
        }
        worker.enqueue(JobRequest.of("known", null));

        await().atMost(WAIT).until(() -> worker.metrics().failed() == 5 && worker.metrics().succeeded() == 1);
        assertThat(registry.find("skiplock.jobs.failed").counters()).extracting(counter -> counter.getId().getTag("kind"))
                .containsExactlyInAnyOrder("known", "(unhandled)");
        assertThat(counter(registry, "skiplock.jobs.failed", "(unhandled)")).isEqualTo(5);
        assertThat(counter(registry, "skiplock.jobs.succeeded", "known")).isEqualTo(1);
    }

    /**
     * The depth gauges follow the counts while the reaper's fold of them fails (a role without
     * rights on a counts table, as README's migration notes warn). Before, the failing fold ended the reaper's run
     * before the gauges' refresh, and they kept their last values.
     */
    @Test
    void theDepthGaugesFollowWhileTheFoldOfTheCountsFails() {
        Skiplock client = client();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        track(Skiplock.builder()
                .dataSource(BeforeStatement.failing(client.dataSource(), BeforeStatement.sql(client, "jobs", "compact_job_counts")))
                .config(fastConfig().queue("default", 1).build()).meterRegistry(registry).build()).start();
        for (int i = 0; i < 3; i++) {
            client.enqueue(JobRequest.of("report", null).withQueue("idle"));
        }

        await().atMost(WAIT).until(() -> {
            var queued = registry.find("skiplock.jobs").tag("queue", "idle").tag("status", "queued").gauge();
            return queued != null && queued.value() == 3;
        });
    }

    /**
     * A queue with no job left that no worker of the instance serves loses its depth series; a
     * queue the instance serves keeps them, at 0. Before, every queue and status ever counted kept
     * a series for the life of the process: enqueues to ever new queue names added series without
     * bound, and a queue that was gone read 0 for good.
     */
    @Test
    void aQueueWithNoJobLeftLosesItsDepthSeriesUnlessServedHere() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Skiplock skiplock = started(builder(config -> config.queue("default", 1)).meterRegistry(registry)
                .handler("ok", Work.class, context -> JobOutcome.complete()));
        Job served = skiplock.enqueue(JobRequest.of("ok", new Work("a")));
        Job elsewhere = skiplock.enqueue(JobRequest.of("ok", new Work("b")).withQueue("once"));
        awaitTerminal(skiplock, served.id());
        await().atMost(WAIT).until(() -> depth(registry, "default", "succeeded") == 1
                && depth(registry, "once", "queued") == 1);

        skiplock.cancel(elsewhere.id());
        skiplock.delete(elsewhere.id());
        skiplock.delete(served.id());

        await().atMost(WAIT).until(() -> registry.find("skiplock.jobs").tag("queue", "once").gauges().isEmpty());
        assertThat(depth(registry, "default", "succeeded")).isZero();
    }

    private static double depth(SimpleMeterRegistry registry, String queue, String status) {
        var gauge = registry.find("skiplock.jobs").tags("queue", queue, "status", status).gauge();
        return gauge == null ? -1 : gauge.value();
    }

    /**
     * An application's meter registry whose meters throw stops no job and miscounts nothing in
     * {@code metrics()}: its meters were updated between a statement's commit and what follows it
     * (a completed batch was written again and counted stale; claimed jobs were never started).
     */
    @Test
    void aMeterRegistryThatThrowsStopsNoJob() {
        SimpleMeterRegistry broken = new SimpleMeterRegistry() {
            @Override
            protected io.micrometer.core.instrument.Counter newCounter(io.micrometer.core.instrument.Meter.Id id) {
                return new io.micrometer.core.instrument.cumulative.CumulativeCounter(id) {
                    @Override
                    public void increment(double amount) {
                        throw new IllegalStateException("meter broken");
                    }
                };
            }
        };
        Skiplock skiplock = started(builder(config -> config.queue("default", 1)).meterRegistry(broken)
                .handler("ok", Work.class, context -> JobOutcome.complete(context.args().name())));
        for (String name : List.of("first", "second", "third")) {
            Job job = skiplock.enqueue(JobRequest.of("ok", new Work(name)));
            assertThat(awaitTerminal(skiplock, job.id()).result().asText()).isEqualTo(name);
        }
        awaitCount(() -> skiplock.metrics().succeeded(), 3);
        assertThat(skiplock.metrics().claimed()).isEqualTo(3);
        assertThat(skiplock.metrics().staleCompletions()).isZero();
    }

    @Test
    void aRegistryAddedAfterTheMetersExistStillReceivesThem() {
        Skiplock skiplock = started(builder(config -> config.queue("default", 1))
                .handler("ok", Work.class, context -> JobOutcome.complete()));
        awaitTerminal(skiplock, skiplock.enqueue(JobRequest.of("ok", new Work("a"))).id());
        awaitCount(() -> skiplock.metrics().succeeded(), 1);

        SimpleMeterRegistry late = new SimpleMeterRegistry();
        skiplock.meterRegistry().add(late);
        awaitTerminal(skiplock, skiplock.enqueue(JobRequest.of("ok", new Work("b"))).id());
        awaitCount(() -> skiplock.metrics().succeeded(), 2);

        assertThat(late.get("skiplock.jobs.succeeded").tags("queue", "default", "kind", "ok").counter().count())
                .isEqualTo(1);
    }

    @Test
    void theCountsFollowEveryTransitionWithoutCountingTheJobs() {
        Skiplock skiplock = started(builder(config -> config.queue("default", 2))
                .handler("ok", Work.class, context -> JobOutcome.complete())
                .handler("doomed", Work.class, context -> JobOutcome.fail("always")));
        // Enqueued one by one, as a batch (COPY on PostgreSQL from 100 jobs on; to two queues), and to
        // queues nobody serves.
        List<JobRequest> batch = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            batch.add(JobRequest.of("ok", new Work("bulk" + i)).withQueue("parked"));
            if (i % 5 == 0) {
                batch.add(JobRequest.of("ok", new Work("spare" + i)).withQueue("spare"));
            }
        }
        skiplock.enqueueMany(batch);
        Job ok = skiplock.enqueue(JobRequest.of("ok", new Work("a")));
        Job doomed = skiplock.enqueue(JobRequest.of("doomed", new Work("b")));
        Job parked = skiplock.enqueue(JobRequest.of("ok", new Work("c")).withQueue("parked"));
        // A dependent waits, then is released by the dependency trigger.
        Job dependent = skiplock.enqueue(JobRequest.of("ok", new Work("d")).withDependsOn(List.of(ok.id())));
        awaitTerminal(skiplock, ok.id());
        awaitTerminal(skiplock, doomed.id());
        awaitTerminal(skiplock, dependent.id());
        // A job born failed (its dependency already failed) counts, and finished in this minute; a
        // second enqueue of a live unique key inserts nothing and counts nothing.
        Job bornFailed = skiplock.enqueue(JobRequest.of("ok", new Work("g")).withDependsOn(List.of(doomed.id())));
        assertThat(bornFailed.status()).isEqualTo(JobStatus.FAILED);
        Job unique = skiplock.enqueue(JobRequest.of("ok", new Work("h")).withQueue("parked").withUniqueKey("h"));
        assertThat(skiplock.enqueue(JobRequest.of("ok", new Work("h")).withQueue("parked").withUniqueKey("h")).id())
                .isEqualTo(unique.id());
        skiplock.cancel(parked.id());
        skiplock.delete(ok.id());
        Job retried = skiplock.retry(doomed.id());
        awaitTerminal(skiplock, retried.id());
        Job waiting = skiplock.enqueue(JobRequest.of("ok", new Work("e")).withQueue("parked")
                .withDependsOn(List.of(skiplock.enqueue(JobRequest.of("ok", new Work("f")).withQueue("parked")).id())));
        assertThat(waiting.status()).isEqualTo(JobStatus.WAITING);

        assertThat(counted(skiplock)).isEqualTo(countedOverTheJobs(skiplock))
                .containsEntry("parked/queued", 152L).containsEntry("spare/queued", 30L).containsEntry("parked/waiting", 1L)
                .containsEntry("parked/cancelled", 1L).containsEntry("default/succeeded", 1L)
                .containsEntry("default/failed", 2L);
        // The reaper folds the deltas; the counts stay the same.
        await().atMost(WAIT).until(() -> unfoldedDeltas(skiplock) == 0 && foldedRows(skiplock) == counted(skiplock).size());
        assertThat(counted(skiplock)).isEqualTo(countedOverTheJobs(skiplock));

        // Finishes per minute: ok, doomed (twice: before and after its retry), the dependent, the
        // job born failed, and the cancel; the delete subtracts nothing. Only parked has jobs
        // waiting to run.
        Map<String, QueueActivity> activity = skiplock.activity().stream()
                .collect(Collectors.toMap(QueueActivity::queue, queue -> queue));
        assertThat(activity.get("default").finishedPerMinute()).hasSize(QueueActivity.MINUTES);
        assertThat(finishedLately(activity.get("default"))).isEqualTo(5);
        assertThat(finishedLately(activity.get("parked"))).isEqualTo(1);
        assertThat(activity.get("default").oldestQueuedAt()).isNull();
        Instant oldest = activity.get("parked").oldestQueuedAt();
        assertThat(oldest).isNotNull().isBeforeOrEqualTo(Instant.now().plusSeconds(5));
        assertThat(skiplock.activityAllTenants()).isEqualTo(skiplock.activity());
    }

    /**
     * The four statements that set or end running (claim, completion, release at shutdown, unclaim
     * of a claim whose answer was lost) keep the counts and the finishes per minute, for jobs of two
     * tenants moved by one statement, and a completion's for jobs of two queues too, with the
     * dependents it releases in two more. The release and the unclaim are covered nowhere else.
     */
    @Test
    void theStatementsThatSetOrEndRunningKeepTheCounts() {
        Skiplock skiplock = client();
        JobStore store = FastPathContract.store(skiplock);
        for (int i = 0; i < 12; i++) {
            skiplock.tenant(i % 2 == 0 ? "north" : "south").enqueue(JobRequest.of("ok", new Work("w" + i)));
        }
        for (int i = 0; i < 4; i++) {
            skiplock.tenant(i % 2 == 0 ? "north" : "south")
                    .enqueue(JobRequest.of("ok", new Work("o" + i)).withQueue("other"));
        }
        UUID token = UUID.randomUUID();
        List<Claimed> claimed = store.claimJobs(new ClaimParams("default", "worker-1", "host-1", token, 60_000, "[]"), 12);
        assertThat(claimed).hasSize(12);
        List<Claimed> others = store.claimJobs(new ClaimParams("other", "worker-1", "host-1", UUID.randomUUID(), 60_000,
                "[]"), 4);
        assertThat(others).hasSize(4);
        assertThat(countedAllTenants(skiplock)).isEqualTo(countedOverTheJobs(skiplock))
                .containsEntry("default/running", 12L).containsEntry("other/running", 4L);
        assertThat(countedPerTenant(skiplock)).isEqualTo(countedOverTheJobsPerTenant(skiplock));
        // By tenant: SQLite returns a claim's rows in an order of its own
        List<Claimed> north = ofTenant(claimed, "north");
        List<Claimed> south = ofTenant(claimed, "south");
        // Each tenant's dependent, in a queue of its own, waits for one of the successes below
        Job laterOfNorth = skiplock.tenant("north").enqueue(JobRequest.of("ok", new Work("later")).withQueue("later")
                .withDependsOn(List.of(north.getFirst().job().id())));
        Job afterOfSouth = skiplock.tenant("south").enqueue(JobRequest.of("ok", new Work("after")).withQueue("after")
                .withDependsOn(List.of(ofTenant(others, "south").getFirst().job().id())));
        assertThat(List.of(laterOfNorth.status(), afterOfSouth.status())).containsOnly(JobStatus.WAITING);

        // Completions of both tenants and both queues in one statement: north's two successes and two
        // retries, south's two failures and two cancels; every job of other succeeded
        List<Completion> completions = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            completions.add(new Completion(north.get(i).lease(), JobStatus.SUCCEEDED, 0, null, null, 0));
            completions.add(new Completion(south.get(i).lease(), JobStatus.FAILED, 0, null, null, 0));
            completions.add(new Completion(north.get(i + 2).lease(), JobStatus.QUEUED, 0, null, null, 0));
            completions.add(new Completion(south.get(i + 2).lease(), JobStatus.CANCELLED, 0, null, null, 0));
        }
        others.forEach(job -> completions.add(new Completion(job.lease(), JobStatus.SUCCEEDED, 0, null, null, 0)));
        assertThat(store.completeJobs(completions)).hasSize(12);
        assertThat(countedAllTenants(skiplock)).isEqualTo(countedOverTheJobs(skiplock))
                .containsEntry("default/running", 4L).containsEntry("default/queued", 2L)
                .containsEntry("other/succeeded", 4L).containsEntry("later/queued", 1L).containsEntry("after/queued", 1L);
        assertThat(countedPerTenant(skiplock)).isEqualTo(countedOverTheJobsPerTenant(skiplock))
                .containsEntry("north/other/succeeded", 2L).containsEntry("south/other/succeeded", 2L);

        // Two released at shutdown, the claim of the last two given back
        assertThat(store.releaseJobs(List.of(north.get(4).lease(), south.get(4).lease()))).isEqualTo(2);
        assertThat(store.unclaimJobs("default", token)).isEqualTo(2);
        assertThat(countedAllTenants(skiplock)).isEqualTo(countedOverTheJobs(skiplock))
                .doesNotContainKey("default/running").containsEntry("default/queued", 6L);

        // Finished in the last two minutes: two successes, two failures and two cancels; four successes
        Map<String, QueueActivity> activity = skiplock.activityAllTenants().stream()
                .collect(Collectors.toMap(QueueActivity::queue, queue -> queue));
        assertThat(finishedLately(activity.get("default"))).isEqualTo(6);
        assertThat(finishedLately(activity.get("other"))).isEqualTo(4);
        // north's two successes of default, south's two failures and two cancels; two each of other
        Map<String, Long> finishedPerTenant = new TreeMap<>();
        for (String tenant : List.of("north", "south")) {
            skiplock.tenant(tenant).activity().forEach(queue -> finishedPerTenant.put(tenant + "/" + queue.queue(),
                    finishedLately(queue)));
        }
        assertThat(finishedPerTenant).containsEntry("north/default", 2L).containsEntry("south/default", 4L)
                .containsEntry("north/other", 2L).containsEntry("south/other", 2L);
    }

    /**
     * A queue's oldest queued job is its earliest due job over all its priorities and only the
     * tenant's: not the first in claim order (a higher priority's), not a job not yet due (in the
     * highest priority, the lowest, or a whole queue), not another tenant's. The statement reads
     * each priority's first due job (issue #12), so priorities with delayed jobs only, above and
     * below the due ones, and queues past the first are each a case of its walk; another tenant's
     * older job in the same priority is one of its tenant test.
     */
    @Test
    void theOldestQueuedJobIsTheEarliestDueOfTheQueueOverItsPrioritiesAndOfTheTenantOnly() throws SQLException {
        Skiplock skiplock = client();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Instant tomorrow = now.plus(Duration.ofDays(1));
        JobClient north = skiplock.tenant("north");
        enqueueAt(skiplock, "mail", 20, tomorrow);
        enqueueAt(skiplock, "mail", 10, now.minus(Duration.ofMinutes(1)));
        enqueueAt(skiplock, "mail", 0, now.minus(Duration.ofMinutes(30)));
        enqueueAt(skiplock, "mail", 0, now.minus(Duration.ofHours(1)));
        enqueueAt(skiplock, "mail", -5, tomorrow);
        enqueueAt(skiplock, "reports", 0, tomorrow);
        enqueueAt(skiplock, "zeta", 3, tomorrow);
        enqueueAt(skiplock, "zeta", -3, now.minus(Duration.ofMinutes(2)));
        enqueueAt(north, "mail", 50, now.minus(Duration.ofHours(2)));
        enqueueAt(north, "mail", 0, now.minus(Duration.ofHours(3)));
        enqueueAt(north, "nightly", 0, now.minus(Duration.ofMinutes(3)));

        Map<String, Instant> ofDefault = Map.of(
                "mail", now.minus(Duration.ofHours(1)), "zeta", now.minus(Duration.ofMinutes(2)));
        Map<String, Instant> ofNorth = Map.of(
                "mail", now.minus(Duration.ofHours(3)), "nightly", now.minus(Duration.ofMinutes(3)));
        Map<String, Instant> ofAll = Map.of(
                "mail", now.minus(Duration.ofHours(3)), "zeta", now.minus(Duration.ofMinutes(2)),
                "nightly", now.minus(Duration.ofMinutes(3)));
        assertThat(oldestQueued(skiplock.activity())).isEqualTo(ofDefault);
        assertThat(oldestQueued(north.activity())).isEqualTo(ofNorth);
        assertThat(oldestQueued(skiplock.activityAllTenants())).isEqualTo(ofAll);
        // The store reads these few jobs with oldest_queued; the probes of oldest_queued_by_priority
        // (for queues of many jobs) must find the same.
        for (String statement : List.of("oldest_queued", "oldest_queued_by_priority")) {
            assertThat(oldestQueued(skiplock, statement, Skiplock.DEFAULT_TENANT)).as(statement).isEqualTo(ofDefault);
            assertThat(oldestQueued(skiplock, statement, "north")).as(statement).isEqualTo(ofNorth);
            assertThat(oldestQueued(skiplock, statement, null)).as(statement).isEqualTo(ofAll);
        }
    }

    /** Each queue's oldest due job of {@code tenant} (null: every tenant) by {@code statement} of jobs.sql. */
    private static Map<String, Instant> oldestQueued(Skiplock client, String statement, String tenant) throws SQLException {
        try (Connection connection = client.dataSource().getConnection()) {
            return OldestQueuedCall.run(connection, FastPathContract.driver(client), statement, tenant);
        }
    }

    private static void enqueueAt(JobClient client, String queue, int priority, Instant runAt) {
        client.enqueue(JobRequest.of("ok", new Work(queue + priority)).withQueue(queue).withPriority(priority).withRunAt(runAt));
    }

    /** Each queue's oldestQueuedAt, for the queues that have one. */
    private static Map<String, Instant> oldestQueued(List<QueueActivity> activity) {
        return activity.stream().filter(queue -> queue.oldestQueuedAt() != null)
                .collect(Collectors.toMap(QueueActivity::queue, QueueActivity::oldestQueuedAt));
    }

    /** Jobs per queue and status over every tenant, from the counts. */
    static Map<String, Long> countedAllTenants(Skiplock skiplock) {
        return skiplock.countAllTenants().stream().collect(Collectors.toMap(
                count -> count.queue() + "/" + count.status().wireName(), QueueCount::jobs, Long::sum, TreeMap::new));
    }

    /** The finishes of the last two minutes: the test's jobs finished within them. */
    private static long finishedLately(QueueActivity queue) {
        List<Long> perMinute = queue.finishedPerMinute();
        return perMinute.get(perMinute.size() - 1) + perMinute.get(perMinute.size() - 2);
    }

    private static double counter(SimpleMeterRegistry registry, String name, String kind) {
        return registry.get(name).tags("queue", "default", "kind", kind).counter().count();
    }

    private static double gauge(SimpleMeterRegistry registry, String name, String tag, String value) {
        var gauge = registry.find(name).tag(tag, value).gauge();
        return gauge == null ? -1 : gauge.value();
    }

    static Map<String, Long> counted(Skiplock skiplock) {
        return skiplock.count().stream().collect(Collectors.toMap(
                count -> count.queue() + "/" + count.status().wireName(), QueueCount::jobs, Long::sum, TreeMap::new));
    }

    private static List<Claimed> ofTenant(List<Claimed> claimed, String tenant) {
        List<Claimed> ofTenant = claimed.stream().filter(job -> job.job().tenant().equals(tenant)).toList();
        assertThat(ofTenant).as("jobs of %s", tenant).isNotEmpty();
        return ofTenant;
    }

    /** The counts of the tenants north and south, by tenant, queue and status. */
    private static Map<String, Long> countedPerTenant(Skiplock skiplock) {
        Map<String, Long> counts = new TreeMap<>();
        for (String tenant : List.of("north", "south")) {
            skiplock.tenant(tenant).count().forEach(count -> counts.merge(
                    tenant + "/" + count.queue() + "/" + count.status().wireName(), count.jobs(), Long::sum));
        }
        return counts;
    }

    /** The jobs of every tenant, by tenant, queue and status. */
    private static Map<String, Long> countedOverTheJobsPerTenant(Skiplock skiplock) {
        Map<String, Long> counts = new TreeMap<>();
        Jdbc.query(skiplock.dataSource(),
                "SELECT tenant, queue, status, count(*) FROM skiplock_jobs GROUP BY tenant, queue, status",
                row -> counts.put(row.getString(1) + "/" + row.getString(2) + "/" + row.getString(3), row.getLong(4)));
        return counts;
    }

    static Map<String, Long> countedOverTheJobs(Skiplock skiplock) {
        Map<String, Long> counts = new TreeMap<>();
        Jdbc.query(skiplock.dataSource(), "SELECT queue, status, count(*) FROM skiplock_jobs GROUP BY queue, status",
                row -> counts.put(row.getString(1) + "/" + row.getString(2), row.getLong(3)));
        return counts;
    }

    /** Rows of the deltas the database appends to and has not folded yet (PostgreSQL; SQLite appends none). */
    long unfoldedDeltas(Skiplock skiplock) {
        List<String> tables = database.countTables();
        return tables.size() < 2 ? 0 : Jdbc.query(skiplock.dataSource(), "SELECT count(*) FROM " + tables.getFirst(),
                row -> row.getLong(1)).getFirst();
    }

    /** Rows of the counts' tables with a non-zero count: one per group once folded. */
    long foldedRows(Skiplock skiplock) {
        long rows = 0;
        for (String table : database.countTables()) {
            rows += Jdbc.query(skiplock.dataSource(), "SELECT count(*) FROM " + table + " WHERE jobs <> 0",
                    row -> row.getLong(1)).getFirst();
        }
        return rows;
    }
}
