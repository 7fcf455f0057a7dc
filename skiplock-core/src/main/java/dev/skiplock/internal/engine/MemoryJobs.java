package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.JobEvent;
import dev.skiplock.JobNotFoundException;
import dev.skiplock.JobStateException;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.EventSignals;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * In-memory jobs (DESIGN §5, seed ADR-0001): requests with {@code durable == false}, run in this
 * process by the handler registered for their kind, answered by the same client calls as durable
 * jobs (get, cancel, events, delete) and lost when the instance closes. Nothing is written to the
 * database and no other process sees them.
 *
 * <p>Each attempt is an {@link Execution} whose outcome {@link Outcomes} maps exactly as for a
 * durable job: a snooze runs again after its delay (one more attempt allowed), a failure or timeout
 * is retried per the kind's retry policy while attempts remain, a cancel stops the handler. A job
 * runs at once, on a virtual thread of its own: queue concurrency and priority are recorded, not
 * applied. Refused when enqueued, naming the field: {@code runAt}, {@code uniqueKey},
 * {@code dependsOn}, a kind without a handler on this instance. Finished jobs are forgotten after
 * the instance's retention, as durable ones are deleted, and past the last {@value #KEPT_ENDED} to
 * end, whatever the retention: the heap holds them. Thread-safe.
 */
public final class MemoryJobs implements AutoCloseable {
    private final SkiplockConfig config;
    private final Handlers handlers;
    private final Map<UUID, MemoryJob> jobs = new ConcurrentHashMap<>();
    private final AtomicBoolean pruning = new AtomicBoolean();
    private volatile boolean closed;
    /** Starts each job, retry and snooze at its time and stops timed-out ones; its thread starts with the first job. */
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
            Thread.ofPlatform().name("skiplock-memory-timer").daemon().factory());
    private final ExecutorService handlerThreads =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("skiplock-memory-job-", 0).factory());
    private final MemoryJob.Runtime runtime;
    /**
     * The ended jobs in the order they ended: past {@link #KEPT_ENDED}, the oldest is forgotten. Each
     * keeps its log and checkpoints in the heap every job shares, so a job deleted or pruned leaves
     * it too (it stayed until 10,000 more had ended, and took the place of one kept).
     */
    private final java.util.Queue<MemoryJob> ended = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicInteger endedCount = new java.util.concurrent.atomic.AtomicInteger();

    /** The most ended in-memory jobs kept, whatever the retention: the heap holds them. */
    static final int KEPT_ENDED = 10_000;

    public MemoryJobs(SkiplockConfig config, Map<String, HandlerBinding<?>> handlers, EventSignals signals,
            JobTracing tracing) {
        this.config = config;
        this.handlers = new Handlers(handlers);
        this.runtime = new MemoryJob.Runtime(timer, handlerThreads, this.handlers,
                new Outcomes(config.retryPolicy(), config.defaultTimeout()), new AtomicLong(), signals, config.clock(),
                config.defaultTimeout(), config, tracing, this::ended);
        timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * Starts an in-memory job at once; see the class comment for what is refused. {@code requested} is
     * the job as {@code TenantJobClient} builds it for an insert: queued, attempt 0, no times yet but
     * {@code availableAt} from the request's {@code runAt}.
     */
    public Job submit(Job requested) {
        if (closed) {
            throw new IllegalStateException("this Skiplock instance is closed: it runs no more in-memory jobs");
        }
        if (requested.availableAt() != null) {
            throw new IllegalArgumentException("runAt: an in-memory job runs at once; enqueue it durable to run later");
        }
        if (requested.uniqueKey() != null) {
            throw new IllegalArgumentException("uniqueKey: in-memory jobs are not deduplicated; enqueue it durable");
        }
        if (!requested.dependsOn().isEmpty()) {
            throw new IllegalArgumentException("dependsOn: an in-memory job cannot wait for other jobs; enqueue it durable");
        }
        HandlerBinding<?> binding = handlers.of(requested.kind());
        if (binding == null) {
            throw new IllegalArgumentException("kind: no handler for " + requested.kind()
                    + " on this instance; an in-memory job runs where it is enqueued");
        }
        MemoryJob job = new MemoryJob(runtime, binding, requested);
        jobs.put(job.id(), job);
        startPruning();
        return job.enqueued();
    }

    public boolean owns(String tenant, UUID id) {
        return find(tenant, id).isPresent();
    }

    /** The tenant of in-memory job {@code id}, if this instance holds it. */
    public Optional<String> tenantOf(UUID id) {
        MemoryJob job = id == null ? null : jobs.get(id);
        return job == null ? Optional.empty() : Optional.of(job.tenant());
    }

    public Optional<Job> get(String tenant, UUID id) {
        return find(tenant, id).map(MemoryJob::snapshot);
    }

    /** Queued: cancelled at once. Running: {@code cancelRequested}, the handler is interrupted and records {@code cancelled}. */
    public Job cancel(String tenant, UUID id) {
        return require(tenant, id).cancel();
    }

    /** An in-memory job is never restarted: always a {@link JobStateException} (or not found). */
    public Job retry(String tenant, UUID id) {
        Job job = require(tenant, id).snapshot();
        throw new JobStateException("job " + id + " is an in-memory job; those are never restarted", job);
    }

    /** Forgets a terminal job and its events. */
    public void delete(String tenant, UUID id) {
        MemoryJob job = require(tenant, id);
        job.requireTerminal();
        jobs.remove(id, job);
        if (ended.remove(job)) {
            endedCount.decrementAndGet();
        }
    }

    public List<JobEvent> events(String tenant, UUID id, long afterSeq, int limit) {
        return require(tenant, id).events(afterSeq, limit);
    }

    /** {@code job} ended: kept with the last {@link #KEPT_ENDED}, the oldest of them forgotten. */
    private void ended(MemoryJob job) {
        ended.add(job);
        if (endedCount.incrementAndGet() > KEPT_ENDED) {
            MemoryJob oldest = ended.poll();
            if (oldest != null) {
                endedCount.decrementAndGet();
                jobs.remove(oldest.id(), oldest);
            }
        }
    }

    /**
     * Interrupts what still runs and waits for it to end as the engine's close does
     * ({@link JobRunner#STOPPED_HANDLERS_LIMIT}); every in-memory job is lost with the instance.
     */
    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        jobs.values().forEach(MemoryJob::shutdown);
        if (Threads.endWithin(handlerThreads, JobRunner.STOPPED_HANDLERS_LIMIT)) {
            Thread.currentThread().interrupt();
        }
        handlers.awaitCleanUps(JobRunner.STOPPED_HANDLERS_LIMIT);
    }

    /**
     * Finished jobs are forgotten after {@link SkiplockConfig#retention()}, checked every
     * {@link SkiplockConfig#pruneInterval()} as durable ones are; started with the first in-memory job.
     */
    private void startPruning() {
        if (config.retention() == null || !pruning.compareAndSet(false, true)) {
            return;
        }
        long every = config.pruneInterval().toMillis();
        try {
            timer.scheduleWithFixedDelay(() -> {
                Instant cutoff = config.clock().instant().minus(config.retention());
                jobs.values().removeIf(job -> job.finishedBefore(cutoff));
                for (MemoryJob job : ended) {
                    // counted by this removal only: an ended() or delete() may take the same job
                    // (removeIf's test counted one it then lost to them, twice)
                    if (job.finishedBefore(cutoff) && ended.remove(job)) {
                        endedCount.decrementAndGet();
                    }
                }
            }, every, every, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closing: nothing left to prune
        }
    }

    private MemoryJob require(String tenant, UUID id) {
        return find(tenant, id).orElseThrow(() -> new JobNotFoundException(id));
    }

    private Optional<MemoryJob> find(String tenant, UUID id) {
        MemoryJob job = id == null ? null : jobs.get(id);
        return job != null && job.tenant().equals(tenant) ? Optional.of(job) : Optional.empty();
    }
}
