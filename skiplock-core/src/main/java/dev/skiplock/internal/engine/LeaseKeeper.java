package dev.skiplock.internal.engine;

import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.store.CronStore;
import dev.skiplock.internal.store.HeartbeatAck;
import dev.skiplock.internal.store.HeldAttempt;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.internal.store.Stores;
import dev.skiplock.internal.store.WorkerStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this worker's leases alive (one heartbeat statement per interval for all held jobs, which
 * also gives back claims whose answer was lost), stops executions whose lease is gone or whose
 * cancel was requested, and runs the reaper that clears expired leases of any worker and settles
 * waiting jobs. Also times out executions. Its tasks never die: failures are logged.
 */
final class LeaseKeeper {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

    static final int PRUNE_BATCH = 1000;
    static final int MAX_PRUNE_ROUNDS = 100;

    private final SkiplockConfig config;
    private final JobStore store;
    private final CronStore cron;
    private final WorkerStore workers;
    private final Registry registry;
    private final Counters counters;
    private final Engine engine;
    private final LostClaims lostClaims;
    private final ScheduledThreadPoolExecutor scheduler;

    LeaseKeeper(SkiplockConfig config, Stores stores, Registry registry, Counters counters, Engine engine,
            LostClaims lostClaims) {
        this.config = config;
        this.store = stores.jobs();
        this.cron = stores.cron();
        this.workers = stores.workers();
        this.registry = registry;
        this.counters = counters;
        this.engine = engine;
        this.lostClaims = lostClaims;
        // Two threads: a heartbeat blocked on a slow database must not delay timeouts.
        this.scheduler = new ScheduledThreadPoolExecutor(2,
                Thread.ofPlatform().name("skiplock-lease-", 0).daemon().factory());
        this.scheduler.setRemoveOnCancelPolicy(true);
    }

    void start() {
        long heartbeat = config.heartbeatInterval().toMillis();
        scheduler.scheduleWithFixedDelay(() -> guarded("heartbeat", this::heartbeat), heartbeat, heartbeat,
                TimeUnit.MILLISECONDS);
        long reaper = config.reaperInterval().toMillis();
        // A random first delay spreads the reapers of many nodes started together.
        long firstReap = ThreadLocalRandom.current().nextLong(reaper / 2, reaper + 1);
        scheduler.scheduleWithFixedDelay(() -> guarded("reaper", this::reap), firstReap, reaper,
                TimeUnit.MILLISECONDS);
        if (config.retention() != null) {
            long prune = config.pruneInterval().toMillis();
            scheduler.scheduleWithFixedDelay(() -> guarded("retention", this::prune), prune, prune,
                    TimeUnit.MILLISECONDS);
        }
    }

    ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
        return scheduler.schedule(() -> guarded("timeout", task), delay, unit);
    }

    void stop() {
        scheduler.shutdownNow();
    }

    private void heartbeat() {
        workers.touch(config.workerId()); // the registry shows idle workers as alive too
        lostClaims.retry();
        List<Execution> held = registry.snapshot();
        if (held.isEmpty()) {
            return;
        }
        List<HeartbeatAck> acks = store.heartbeat(config.leaseTtl().toMillis(),
                held.stream().map(Execution::attempt).toList());
        Map<HeldAttempt, Boolean> alive = new HashMap<>();
        acks.forEach(ack -> alive.put(ack.lease(), ack.cancelRequested()));
        for (Execution execution : held) {
            Boolean cancelRequested = alive.get(execution.attempt());
            if (cancelRequested == null) {
                // Only a running handler can be stopped; an outcome already waiting in the completer
                // is fenced there instead.
                if (execution.isRunning()) {
                    engine.stop(execution, Execution.StopReason.LEASE_LOST);
                }
            } else if (cancelRequested) {
                engine.stop(execution, Execution.StopReason.CANCEL);
            }
        }
    }

    /**
     * Clears expired leases and tells this node's fetchers of those queues (other nodes learn it by
     * notification, and every fetcher also looks for orphans once per poll interval however busy
     * it is); then settles waiting jobs whose dependencies finished unseen.
     */
    private void reap() {
        Map<String, Integer> orphans = store.reapExpiredLeases();
        if (!orphans.isEmpty()) {
            int reaped = orphans.values().stream().mapToInt(Integer::intValue).sum();
            counters.leasesReaped.add(reaped);
            LOG.info("reaper cleared {} expired leases", reaped);
            orphans.keySet().forEach(engine::orphansAvailable);
        }
        int settled = store.settleWaitingJobs();
        if (settled > 0) {
            LOG.info("settled {} waiting jobs whose dependencies finished while they were being enqueued", settled);
        }
    }

    /**
     * Deletes expired history in batches, so no single statement holds locks for long: finished
     * jobs, then cron slot markers (kept at least {@link CronStore#MIN_MARKER_AGE}).
     */
    private void prune() {
        Duration retention = config.retention();
        int jobs = pruneInBatches(() -> store.pruneFinished(retention.toMillis(), PRUNE_BATCH));
        if (jobs > 0) {
            LOG.info("retention deleted {} jobs finished more than {} ago", jobs, retention);
        }
        int slots = pruneInBatches(() -> cron.prune(retention, PRUNE_BATCH));
        if (slots > 0) {
            LOG.info("retention deleted {} cron slot markers older than {}", slots, CronStore.markerAge(retention));
        }
    }

    private static int pruneInBatches(IntSupplier batch) {
        int total = 0;
        for (int round = 0; round < MAX_PRUNE_ROUNDS; round++) {
            int deleted = batch.getAsInt();
            total += deleted;
            if (deleted < PRUNE_BATCH) {
                break;
            }
        }
        return total;
    }

    private static void guarded(String task, Runnable body) {
        try {
            body.run();
        } catch (RuntimeException e) {
            LOG.warn("{} failed; will run again at its next interval: {}", task, e.getMessage());
        }
    }
}
