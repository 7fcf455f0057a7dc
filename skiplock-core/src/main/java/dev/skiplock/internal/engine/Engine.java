package dev.skiplock.internal.engine;

import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.EventSignals;
import dev.skiplock.internal.store.Stores;
import java.time.Clock;
import dev.skiplock.ExecutionHook;
import java.util.ArrayList;
import javax.sql.DataSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker side of one Skiplock instance. It wires the stages, which call each other in one
 * direction only: a {@link QueueClaimer} per queue claims (through {@link Claims}) and hands each
 * job to the {@link JobRunner}, which runs its handler on a virtual thread and hands the outcome to
 * the {@link Completer}, which writes it and tells {@link Handlers#completed}. Beside them, the
 * {@link LeaseKeeper} (heartbeat, reaper), {@link Timeouts} and the notifications stop executions
 * through the {@link Stopper}; the reaper and the notifications wake claimers through a
 * {@link Waker}; {@link Retention} deletes old history. Started once, stopped once.
 */
public final class Engine implements Worker {
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);
    /**
     * How long a close waits at least for the claimers to stop and for the outcomes pending to be
     * written (or {@code shutdownTimeout} if longer): a statement hung on a connection cut without a
     * reset must not hold the close for good.
     */
    private static final java.time.Duration CLAIMERS_LIMIT = java.time.Duration.ofSeconds(5);
    private static final java.time.Duration OUTCOMES_LIMIT = java.time.Duration.ofSeconds(30);
    /** How long a release at shutdown waits at most for the log lines queued before it (a database down must not hold it up). */
    private static final java.time.Duration LINES_LIMIT = java.time.Duration.ofSeconds(5);

    private final SkiplockConfig config;
    private final Stores stores;
    private final Counters counters;
    private final Registry registry = new Registry();
    private final Handlers handlers;
    private final LostClaims lostClaims;
    private final Completer completer;
    private final Stopper stopper;
    private final JobRunner runner;
    private final Claims claims;
    private final Claimers claimers;
    private final LeaseKeeper leaseKeeper;
    private final ScheduledThreadPoolExecutor timers = Timers.create();
    /** The claimers' look-behinds (LookBehind): reads that may wait on the database, kept off the timers. */
    private final ScheduledThreadPoolExecutor lookBehinds = Timers.single("skiplock-look-behind");
    /** The lease watch (LeaseKeeper.stopLapsed), apart from the timers: a hung heartbeat holds one of them. */
    private final ScheduledThreadPoolExecutor leaseWatch = Timers.single("skiplock-lease-watch");
    /** Retention's runs, apart from the timers: a run of many batches would hold one of them for its length. */
    private final ScheduledThreadPoolExecutor retention = Timers.single("skiplock-retention");

    public Engine(SkiplockConfig config, Stores stores, Map<String, HandlerBinding<?>> bindings,
            Counters counters, EventSignals signals, DataSource dataSource, ExecutionHook hook, JobTracing tracing) {
        this.config = config;
        this.stores = stores;
        this.counters = counters;
        this.handlers = new Handlers(bindings);
        Clock clock = WorkerClock.of(config);
        this.lostClaims = new LostClaims(stores.jobs(), clock);
        this.completer = new Completer(stores, signals, registry, counters, new Completer.Listener() {
            @Override
            public void completed(Execution execution) {
                Engine.this.completed(execution);
            }

            @Override
            public void dependentsReleased(java.util.Set<String> queues) {
                queues.forEach(claimers::wake);
            }
        });
        Outcomes outcomes = new Outcomes(config.retryPolicy(), config.defaultTimeout());
        this.stopper = new Stopper(registry, outcomes, handlers, completer, counters);
        Timeouts timeouts = new Timeouts(timers, clock, stopper);
        this.runner = new JobRunner(stores, config.defaultTimeout(),
                new JobRunner.Parts(handlers, outcomes, registry, counters, stopper, timeouts, completer,
                        new HandlerServices(stores, completer, outcomes, config, dataSource, hook), tracing));
        this.claims = new Claims(config, stores.jobs(), counters, lostClaims, handlers.resumableKindsJson());
        List<QueueClaimer> perQueue = new ArrayList<>();
        config.queues().forEach((queue, concurrency) -> perQueue.add(
                new QueueClaimer(queue, concurrency, config.claimBatchSize(), config.pollInterval(), clock, claims,
                        runner, counters)));
        this.claimers = new Claimers(perQueue);
        this.leaseKeeper = new LeaseKeeper(config, stores.jobs(), stores.workers(),
                new LeaseKeeper.Parts(registry, counters, lostClaims, stopper, claimers));
    }

    @Override
    public void start() {
        leaseKeeper.registerWorker();
        completer.start();
        leaseKeeper.start(timers, leaseWatch);
        if (config.retention() != null) {
            new Retention(stores, config.retention()).start(retention, config.pruneInterval());
        }
        Warmup.run(config.queues().keySet(), handlers, claims, counters, runner, completer);
        claimers.start(lookBehinds);
        LOG.info("skiplock worker {} started on queues {}", config.workerId(), config.queues());
    }

    @Override
    public void wake(String queue) {
        claimers.wake(queue);
    }

    @Override
    public void queueNotified(String queue) {
        claimers.claimNotified(queue);
    }

    @Override
    public void orphansAvailable(String queue) {
        claimers.orphansAvailable(queue);
    }

    @Override
    public void resync() {
        claimers.resync();
    }

    @Override
    public void cancelLocal(UUID jobId) {
        stopper.stopRunning(jobId, Execution.StopReason.CANCEL);
    }

    /**
     * Graceful shutdown: stop claiming, let running jobs finish until the deadline, then interrupt
     * the rest, let them end (a command's grace period; up to
     * {@link JobRunner#STOPPED_HANDLERS_LIMIT}) and release their leases so another worker takes
     * them at once.
     */
    @Override
    public void close() {
        // The closing thread's interrupt ends the wait for handlers early but skips no stage (before,
        // it skipped every stage after the first queue's claimer: the other queues went on claiming
        // after close returned, and pending outcomes were dropped); it is restored at the end.
        boolean interrupted = Thread.interrupted();
        interrupted |= claimers.stop(atLeast(CLAIMERS_LIMIT));
        lookBehinds.shutdownNow();
        if (!interrupted) {
            interrupted = awaitHandlers();
        }
        interrupted |= releaseStillRunning();
        lostClaims.retry();
        interrupted |= completer.stop(atLeast(OUTCOMES_LIMIT));
        handlers.awaitCleanUps(CLAIMERS_LIMIT); // of the last outcomes: a process exit ends them midway
        timers.shutdownNow();
        leaseWatch.shutdownNow();
        retention.shutdownNow();
        interrupted |= runner.stop();
        try {
            leaseKeeper.stopWorker();
        } catch (RuntimeException e) {
            LOG.warn("could not mark worker {} stopped: {}", config.workerId(), e.getMessage());
        }
        LOG.info("skiplock worker {} stopped", config.workerId());
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code limit}, or the configured {@code shutdownTimeout} if longer. */
    private java.time.Duration atLeast(java.time.Duration limit) {
        return limit.compareTo(config.shutdownTimeout()) >= 0 ? limit : config.shutdownTimeout();
    }

    /**
     * Waits until no handler runs or {@code shutdownTimeout} has passed; true if interrupted. A
     * handler committing its job's outcome in its own transaction is waited for too: stopping its
     * thread could roll back a completion the handler was about to commit. The wait is measured by
     * the monotonic timer rather than the configured clock: a clock a test moves by hand (or a wall
     * clock set back) must not hold up a shutdown.
     */
    private boolean awaitHandlers() {
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        try {
            while (registry.handlersOutstanding() > 0 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(10);
            }
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }

    /**
     * An execution's outcome is durable. A wait for a signal that came while the job still ran
     * ended in the same transaction ({@code complete_jobs}); this node's claimer of the job's queue
     * looks at once (other nodes are told by the database where it can).
     */
    private void completed(Execution execution) {
        handlers.completed(execution);
        if (execution.isCompletedInTransaction()) {
            // its dependents, released by the dependency trigger in the handler's transaction, are
            // not known here; on SQLite nothing else wakes their queues' claimers (a success of the
            // completer's batches tells them: Completer.Listener.dependentsReleased)
            config.queues().keySet().forEach(claimers::wake);
        }
        Execution.Suspension wait = execution.suspension();
        if (wait != null && wait.signal() != null) {
            claimers.wake(execution.job().queue());
        }
    }

    /**
     * Stops what still runs and gives its leases back; true if interrupted meanwhile. The stopped
     * handlers end first ({@link JobRunner#stop}: a command within its grace period), so that no
     * other worker starts a job's next attempt while this one still runs it, and what they log on
     * their way out is fenced by the lease they still hold. Their log lines are written before the
     * release: it clears the lease that fences them, and the completer dropped the lines still in
     * its queue (a job's last words before the shutdown).
     */
    private boolean releaseStillRunning() {
        List<Execution> stopped = new ArrayList<>();
        for (Execution execution : registry.snapshot()) {
            if (execution.stop(Execution.StopReason.SHUTDOWN)) {
                stopped.add(execution);
            }
        }
        if (stopped.isEmpty()) {
            return false;
        }
        boolean interrupted = runner.stop();
        try {
            if (!completer.awaitWritten(LINES_LIMIT)) {
                LOG.warn("log lines of {} jobs released at shutdown were not written within {}", stopped.size(),
                        LINES_LIMIT);
            }
        } catch (InterruptedException e) {
            interrupted = true; // release at once: the lines still queued are dropped, as before
        }
        try {
            int released = stores.jobs().releaseJobs(stopped.stream().map(Execution::attempt).toList());
            counters.released(released);
            stopped.forEach(handlers::completed); // each runs again as a new attempt
            LOG.info("released {} running jobs at shutdown", released);
        } catch (RuntimeException e) {
            LOG.warn("could not release {} jobs at shutdown; their leases will expire and be reaped: {}",
                    stopped.size(), e.getMessage());
        }
        stopped.forEach(registry::remove);
        return interrupted;
    }
}
