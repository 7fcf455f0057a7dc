package dev.skiplock.internal.engine;

import dev.skiplock.internal.store.CronStore;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.internal.store.KeptAtLeastADay;
import dev.skiplock.internal.store.PrunedJobs;
import dev.skiplock.internal.store.Stores;
import dev.skiplock.internal.store.WorkerStore;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes expired history every {@code pruneInterval}: finished jobs, then cron slot markers and the
 * registry's rows of workers stopped or silent (both kept at least a day: {@link KeptAtLeastADay}).
 * Ages are the database's; the jobs' walk stops at ids by wall time ({@link JobStore#pruneFinished}).
 * Any node does it; the statements re-check status and age on the rows they delete.
 */
final class Retention {
    private static final Logger LOG = LoggerFactory.getLogger(Retention.class);

    static final int PRUNE_BATCH = 1000;
    static final int MAX_PRUNE_ROUNDS = 100;
    /**
     * How long one batch of the jobs' delete should take: it deletes their events, steps and signals
     * too, under its locks (SQLite's write lock, which every enqueue, claim and heartbeat waits for).
     * A thousand jobs of 2,000 log lines each took 5-8 s on SQLite here.
     */
    static final Duration BATCH_TARGET = Duration.ofMillis(250);

    private final JobStore store;
    private final CronStore cron;
    private final WorkerStore workers;
    private final Duration retention;
    /** The jobs' next batch size, learnt from the batches before ({@link #nextBatch}). */
    private int jobBatch = PRUNE_BATCH;

    Retention(Stores stores, Duration retention) {
        this.store = stores.jobs();
        this.cron = stores.cron();
        this.workers = stores.workers();
        this.retention = retention;
    }

    void start(ScheduledExecutorService timers, Duration pruneInterval) {
        long prune = pruneInterval.toMillis();
        timers.scheduleWithFixedDelay(() -> Timers.guarded("retention", this::prune), prune, prune,
                TimeUnit.MILLISECONDS);
    }

    /** Deletes in batches, so no single statement holds locks for long. */
    private void prune() {
        int jobs = pruneJobs();
        if (jobs > 0) {
            LOG.info("retention deleted {} jobs finished more than {} ago", jobs, retention);
        }
        int slots = pruneInBatches(() -> cron.pruneCronSlots(retention, PRUNE_BATCH));
        if (slots > 0) {
            LOG.info("retention deleted {} cron slot markers older than {}", slots, KeptAtLeastADay.under(retention));
        }
        int workerRows = pruneInBatches(() -> workers.pruneWorkers(retention, PRUNE_BATCH));
        if (workerRows > 0) {
            LOG.info("retention deleted the registry's rows of {} workers stopped or silent for longer than {}",
                    workerRows, KeptAtLeastADay.under(retention));
        }
    }

    private int pruneJobs() {
        int total = 0;
        UUID after = null;
        for (int round = 0; round < MAX_PRUNE_ROUNDS; round++) {
            int limit = jobBatch;
            long started = System.nanoTime();
            PrunedJobs batch = store.pruneFinished(retention.toMillis(), limit, after);
            jobBatch = nextBatch(limit, Duration.ofNanos(System.nanoTime() - started));
            int deleted = batch.deleted();
            total += deleted;
            after = batch.last();
            if (deleted == 0) {
                // not "fewer than the limit": on SQLite a batch also stops at its events' count
                break;
            }
        }
        return total;
    }

    /**
     * The batch size after one of {@code batch} jobs that took {@code took}: smaller in proportion
     * when it took longer than {@link #BATCH_TARGET} (jobs with many events), twice as large (up to
     * {@link #PRUNE_BATCH}) when it took under a quarter of it, else the same.
     */
    static int nextBatch(int batch, Duration took) {
        long target = BATCH_TARGET.toNanos();
        long nanos = Math.max(1, took.toNanos());
        if (nanos > target) {
            return (int) Math.max(1, batch * target / nanos);
        }
        if (nanos < target / 4) {
            return Math.min(PRUNE_BATCH, batch * 2);
        }
        return batch;
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
}
