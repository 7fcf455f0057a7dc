package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import dev.skiplock.QueueCount;
import dev.skiplock.SkiplockMetrics;
import dev.skiplock.internal.store.Claimed;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the engine counts, in two forms: this instance's totals ({@link SkiplockMetrics}, read by
 * {@code Skiplock.metrics()}) and Micrometer meters with {@code queue} and {@code kind} tags on the
 * instance's {@link MeterRegistry} (README "Metrics" lists them). The registry is a composite that
 * costs next to nothing without children. Thread-safe.
 */
public final class Counters {
    private static final Logger LOG = LoggerFactory.getLogger(Counters.class);
    private static final double[] PERCENTILES = {0.5, 0.95, 0.99};
    /** The statuses of the registry's workers (list_workers'), each a series of skiplock.workers. */
    private static final List<String> WORKER_STATUSES = List.of("active", "stale", "stopped");

    private final LongAdder claimed = new LongAdder();
    private final LongAdder succeeded = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder cancelled = new LongAdder();
    private final LongAdder timedOut = new LongAdder();
    private final LongAdder staleCompletions = new LongAdder();
    private final LongAdder leasesLost = new LongAdder();
    private final LongAdder adopted = new LongAdder();
    private final LongAdder resumed = new LongAdder();
    private final LongAdder released = new LongAdder();
    private final LongAdder leasesReaped = new LongAdder();
    private final LongAdder claimStatements = new LongAdder();
    private final LongAdder completionBatches = new LongAdder();
    private final LongAdder enqueuedToUnservedQueues = new LongAdder();

    private final MeterRegistry registry;
    /**
     * Meters by queue, then kind, built once: two lookups per event instead of a builder, and no
     * key object per event (issue #12: a list key per lookup was 4 % of a drain's allocations).
     */
    private final Map<String, Map<String, KindMeters>> byKind = new ConcurrentHashMap<>();
    private final Map<String, QueueMeters> byQueue = new ConcurrentHashMap<>();
    private final DistributionSummary completionBatchSize;
    private final Counter releasedJobs;
    private final Counter enqueuedUnserved;
    private final MultiGauge depth;
    /** The series of {@link #depth} published so far: their tags by queue. */
    private final Map<String, java.util.Set<Tags>> depthSeen = new java.util.LinkedHashMap<>();
    /** The queues this instance's workers serve: their depth series stay, at 0 once empty. */
    private final java.util.Set<String> servedQueues;
    private final MultiGauge workers;
    /** Whether a meter update has failed (its warning is logged once). */
    private final java.util.concurrent.atomic.AtomicBoolean registryFailed = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * The {@code kind} label of a job whose kind this instance has no handler for: a caller can
     * enqueue any kind, and a label per kind would add meters without bound (no kind is named so).
     */
    public static final String UNHANDLED_KIND = "(unhandled)";

    /** The kinds this instance has handlers for: each has a {@code kind} label of its own. */
    private final java.util.Set<String> handledKinds;

    public Counters(MeterRegistry registry, java.util.Set<String> handledKinds, java.util.Set<String> servedQueues) {
        this.registry = registry;
        this.handledKinds = java.util.Set.copyOf(handledKinds);
        this.servedQueues = java.util.Set.copyOf(servedQueues);
        this.depth = MultiGauge.builder("skiplock.jobs")
                .description("Jobs per queue and status, all tenants (the counts table, refreshed every reaperInterval)")
                .register(registry);
        this.workers = MultiGauge.builder("skiplock.workers")
                .description("Workers in the registry per status (refreshed every reaperInterval)")
                .register(registry);
        this.completionBatchSize = DistributionSummary.builder("skiplock.completer.batch.size")
                .description("Outcomes per fenced completion statement").register(registry);
        this.releasedJobs = Counter.builder("skiplock.jobs.released").description("Running jobs given back at shutdown")
                .register(registry);
        this.enqueuedUnserved = Counter.builder("skiplock.jobs.enqueued.unserved")
                .description("Jobs this process enqueued to a queue no live worker served (worker registry)")
                .register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** False while the registry is a composite without children: nothing would see a gauge read from the database. */
    boolean publishing() {
        return !(registry instanceof CompositeMeterRegistry composite) || !composite.getRegistries().isEmpty();
    }

    public SkiplockMetrics snapshot() {
        return new SkiplockMetrics(claimed.sum(), succeeded.sum(), failed.sum(), retried.sum(), cancelled.sum(),
                timedOut.sum(), staleCompletions.sum(), leasesLost.sum(), adopted.sum(), resumed.sum(), released.sum(),
                leasesReaped.sum(), claimStatements.sum(), completionBatches.sum(), enqueuedToUnservedQueues.sum());
    }

    /** One claim statement's jobs: their count, the batch size, and each job's wait (available → started, database clock). */
    void claimed(String queue, List<Claimed> jobs) {
        if (jobs.isEmpty()) {
            return;
        }
        claimed.add(jobs.size());
        claimStatements.increment();
        publish(() -> {
            QueueMeters meters = of(queue);
            meters.claimed().increment(jobs.size());
            meters.claimBatchSize().record(jobs.size());
            for (Claimed claim : jobs) {
                Job job = claim.job();
                if (job.startedAt() != null && job.availableAt() != null) {
                    of(job).waitTime().record(waitNanos(job.availableAt(), job.startedAt()), TimeUnit.NANOSECONDS);
                }
            }
        });
    }

    /** An outcome made durable: counted by status; a terminal one also records its attempts. */
    void finished(Execution execution, JobStatus status) {
        switch (status) {
            case SUCCEEDED -> count(succeeded, execution.job(), KindMeters::succeeded);
            case FAILED -> count(failed, execution.job(), KindMeters::failed);
            case CANCELLED -> count(cancelled, execution.job(), KindMeters::cancelled);
            case TIMED_OUT -> count(timedOut, execution.job(), KindMeters::timedOut);
            case QUEUED -> count(retried, execution.job(), KindMeters::retried);
            default -> throw new IllegalStateException("unexpected outcome status " + status);
        }
        publish(() -> {
            KindMeters meters = of(execution.job());
            meters.runTime().record(execution.runNanos(), TimeUnit.NANOSECONDS);
            if (status != JobStatus.QUEUED) {
                meters.attempts().record(execution.attempt().attempt());
            }
        });
    }

    /** Counts one event of {@code job} in this instance's totals and in its meter. */
    private void count(LongAdder adder, Job job, java.util.function.Function<KindMeters, Counter> meter) {
        adder.increment();
        publish(() -> meter.apply(of(job)).increment());
    }

    /**
     * Updates Micrometer meters. A registry that throws (an application's, added to the instance's
     * composite) is logged, once, and never stops the claimer, a handler or the completer: these
     * calls sit between a statement's commit and what must follow it (starting the claimed jobs,
     * settling a written batch).
     */
    private void publish(Runnable update) {
        try {
            update.run();
        } catch (RuntimeException e) {
            if (registryFailed.compareAndSet(false, true)) {
                LOG.warn("a meter registry failed; Skiplock's meters may miss events from now on: {}", Outcomes.describe(e));
            }
        }
    }

    void staleCompletion(Execution execution) {
        count(staleCompletions, execution.job(), KindMeters::staleFinalizations);
    }

    void completionBatch(int outcomes) {
        completionBatches.increment();
        publish(() -> completionBatchSize.record(outcomes));
    }

    void leaseLost(Job job) {
        count(leasesLost, job, KindMeters::leasesLost);
    }

    void adopted(Job job) {
        count(adopted, job, KindMeters::adopted);
    }

    void resumed(Job job) {
        count(resumed, job, KindMeters::resumed);
    }

    void released(int jobs) {
        released.add(jobs);
        publish(() -> releasedJobs.increment(jobs));
    }

    void reaped(Map<String, Integer> leasesPerQueue) {
        leasesPerQueue.forEach((queue, leases) -> {
            leasesReaped.add(leases);
            publish(() -> of(queue).leasesReaped().increment(leases));
        });
    }

    void enqueuedToUnservedQueue(int jobs) {
        enqueuedToUnservedQueues.add(jobs);
        publish(() -> enqueuedUnserved.increment(jobs));
    }

    /**
     * A claimer's wait ended: rung ({@code notification}: an enqueue notification or a local
     * enqueue, a freed slot, a reaper) or timed out ({@code poll}).
     */
    void wokeUp(String queue, boolean rung) {
        publish(() -> {
            QueueMeters meters = of(queue);
            (rung ? meters.wakeUpsByNotification() : meters.wakeUpsByPoll()).increment();
        });
    }

    /**
     * The gauges read from the database: jobs per queue and status (counts table), workers per
     * status. A status of a queue seen once reads 0 once it empties (the counts list only non-zero
     * groups), so a drained queue reads 0 rather than vanishing, as long as the queue has a job in
     * some status or this instance serves it. A queue with no job left that no worker here serves
     * loses its series: a caller who enqueues to ever new queues, or a queue's removal, would
     * otherwise add series for the life of the process.
     */
    synchronized void refreshGauges(List<QueueCount> counts, Map<String, Long> workersByStatus) { // all the registry's workers
        java.util.Set<String> queuesWithJobs = new java.util.HashSet<>();
        counts.forEach(count -> queuesWithJobs.add(count.queue()));
        depthSeen.keySet().removeIf(queue -> !queuesWithJobs.contains(queue) && !servedQueues.contains(queue));
        Map<Tags, Long> jobs = new java.util.LinkedHashMap<>();
        depthSeen.values().forEach(series -> series.forEach(tags -> jobs.put(tags, 0L)));
        counts.forEach(count -> {
            Tags tags = Tags.of("queue", count.queue(), "status", count.status().wireName());
            jobs.put(tags, count.jobs());
            depthSeen.computeIfAbsent(count.queue(), queue -> new java.util.LinkedHashSet<>()).add(tags);
        });
        depth.register(jobs.entrySet().stream().map(entry -> MultiGauge.Row.of(entry.getKey(), entry.getValue())).toList(),
                true);
        Map<String, Long> byStatus = new java.util.LinkedHashMap<>();
        WORKER_STATUSES.forEach(status -> byStatus.put(status, 0L)); // a status with none reads 0, as a queue's does
        byStatus.putAll(workersByStatus);
        workers.register(byStatus.entrySet().stream().map(entry -> MultiGauge.Row.of(
                Tags.of("status", entry.getKey()), entry.getValue())).toList(), true);
    }

    /**
     * Makes the meters of the worker's queues now (their series read 0 until used); a job's meters
     * are made when a job of its queue and kind is first claimed (pairs are made as they occur, not
     * all at start: most never do).
     */
    void warmUp(Iterable<String> queues) {
        publish(() -> queues.forEach(this::of));
    }

    /**
     * Takes the first-use costs of counting a claim and an outcome ({@link Warmup}): the same code
     * on counters and a registry of their own, which nothing reads (the rehearsal is no job).
     */
    static void rehearse(String queue, List<Claimed> claimed, List<Execution> executions) {
        Counters scratch = new Counters(new CompositeMeterRegistry()
                .add(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()), java.util.Set.of(), java.util.Set.of());
        scratch.claimed(queue, claimed);
        for (Execution execution : executions) {
            scratch.completionBatch(1);
            scratch.finished(execution, JobStatus.SUCCEEDED);
        }
    }

    private KindMeters of(Job job) {
        String kind = handledKinds.contains(job.kind()) ? job.kind() : UNHANDLED_KIND;
        Map<String, KindMeters> ofQueue = byKind.computeIfAbsent(job.queue(), queue -> new ConcurrentHashMap<>());
        KindMeters meters = ofQueue.get(kind);
        return meters != null ? meters : ofQueue.computeIfAbsent(kind,
                key -> new KindMeters(registry, Tags.of("queue", job.queue(), "kind", key)));
    }

    /**
     * From {@code from} to {@code to} in nanoseconds, 0 if negative (the clocks of the enqueuer and
     * the database may differ), at most {@code Long.MAX_VALUE}; no {@code Duration} per job.
     */
    static long waitNanos(Instant from, Instant to) {
        long seconds = to.getEpochSecond() - from.getEpochSecond();
        if (seconds < 0) {
            return 0;
        }
        if (seconds >= Long.MAX_VALUE / 1_000_000_000L) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, seconds * 1_000_000_000L + to.getNano() - from.getNano());
    }

    private QueueMeters of(String queue) {
        return byQueue.computeIfAbsent(queue, key -> new QueueMeters(registry, Tags.of("queue", key)));
    }

    /** The meters tagged with a queue and a job kind. */
    private record KindMeters(Counter succeeded, Counter failed, Counter cancelled, Counter timedOut, Counter retried,
            Counter staleFinalizations, Counter leasesLost, Counter adopted, Counter resumed, Timer waitTime,
            Timer runTime, DistributionSummary attempts) {
        KindMeters(MeterRegistry registry, Tags tags) {
            this(counter(registry, "skiplock.jobs.succeeded", "Attempts that succeeded", tags),
                    counter(registry, "skiplock.jobs.failed", "Attempts that failed for good", tags),
                    counter(registry, "skiplock.jobs.cancelled", "Attempts cancelled", tags),
                    counter(registry, "skiplock.jobs.timed.out", "Attempts that timed out for good", tags),
                    counter(registry, "skiplock.jobs.retried", "Attempts that ended in a retry or snooze", tags),
                    counter(registry, "skiplock.stale.finalizations", "Outcomes rejected by the lease fence", tags),
                    counter(registry, "skiplock.leases.lost", "Executions stopped because their lease was gone", tags),
                    counter(registry, "skiplock.jobs.adopted", "Orphaned jobs (lease cleared by a reaper) taken over", tags),
                    counter(registry, "skiplock.jobs.resumed",
                            "Adopted jobs whose execution outlived its worker and was resumed", tags),
                    timer(registry, "skiplock.job.wait", "Time from a job's availability to the start of an attempt", tags),
                    timer(registry, "skiplock.job.run", "Time from this worker taking an attempt to its outcome", tags),
                    DistributionSummary.builder("skiplock.job.attempts")
                            .description("Attempts a job took, recorded when it finished").tags(tags)
                            .serviceLevelObjectives(1, 2, 3, 5, 10, 25).register(registry));
        }
    }

    /** The meters tagged with a queue only. */
    private record QueueMeters(Counter claimed, DistributionSummary claimBatchSize, Counter leasesReaped,
            Counter wakeUpsByNotification, Counter wakeUpsByPoll) {
        QueueMeters(MeterRegistry registry, Tags tags) {
            this(counter(registry, "skiplock.jobs.claimed", "Attempts claimed by this process", tags),
                    DistributionSummary.builder("skiplock.claim.batch.size")
                            .description("Jobs per claim statement that found any").tags(tags).register(registry),
                    counter(registry, "skiplock.leases.reaped", "Expired leases this instance's reaper cleared", tags),
                    counter(registry, "skiplock.claimer.wakeups",
                            "Claimer wake-ups: rung (notification, local enqueue, freed slot) or timed out (poll)",
                            tags.and("cause", "notification")),
                    counter(registry, "skiplock.claimer.wakeups",
                            "Claimer wake-ups: rung (notification, local enqueue, freed slot) or timed out (poll)",
                            tags.and("cause", "poll")));
        }
    }

    private static Counter counter(MeterRegistry registry, String name, String description, Tags tags) {
        return Counter.builder(name).description(description).tags(tags).register(registry);
    }

    private static Timer timer(MeterRegistry registry, String name, String description, Tags tags) {
        return Timer.builder(name).description(description).tags(tags)
                .publishPercentiles(PERCENTILES).publishPercentileHistogram().register(registry);
    }
}
