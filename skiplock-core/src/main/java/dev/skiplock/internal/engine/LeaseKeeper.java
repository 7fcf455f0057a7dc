package dev.skiplock.internal.engine;

import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.store.HeartbeatAck;
import dev.skiplock.internal.store.HeldAttempt;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.internal.store.WorkerStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this worker's leases alive (one heartbeat statement per interval for all held jobs, which
 * also gives back claims whose answer was lost) and stops executions whose lease is gone or whose
 * cancel was requested; runs the reaper that clears expired leases of any worker (and tells this
 * worker's claimers) and settles waiting jobs. Lease times are the database's. Its tasks never die:
 * failures are logged.
 */
final class LeaseKeeper {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);
    /** How long a close waits for a heartbeat's registration before it marks the worker stopped anyway. */
    private static final long STOP_WAIT_SECONDS = 10;
    /** How often, at most, the lease watch looks (its lag past a lease's end). */
    private static final long WATCH_MILLIS = 1000;
    /** Passes of a heartbeat after the first for leases whose rows another transaction held, and the first pause. */
    private static final int BUSY_PASSES = 4;
    private static final long FIRST_BUSY_PAUSE_MILLIS = 10;

    /** What the lease keeper works with besides the stores: the held executions and whom it tells. */
    record Parts(Registry registry, Counters counters, LostClaims lostClaims, Stopper stopper, Waker claimers) {
    }

    private final SkiplockConfig config;
    private final JobStore store;
    private final WorkerStore workers;
    private final Parts parts;
    /** Orders a heartbeat's registration of this worker against its stop (see touchWorker). */
    private final ReentrantLock registryRow = new ReentrantLock();
    private volatile boolean stopped;

    LeaseKeeper(SkiplockConfig config, JobStore store, WorkerStore workers, Parts parts) {
        this.config = config;
        this.store = store;
        this.workers = workers;
        this.parts = parts;
    }

    /**
     * Starts the heartbeat and the reaper on {@code timers}, and on {@code leaseWatch}, a thread of
     * its own (a heartbeat hung on a dead connection holds a timer), the check that stops an
     * execution whose lease this worker could not extend in time ({@link #stopLapsed}).
     */
    void start(ScheduledExecutorService timers, ScheduledExecutorService leaseWatch) {
        long heartbeat = config.heartbeatInterval().toMillis();
        timers.scheduleWithFixedDelay(() -> Timers.guarded("heartbeat", this::heartbeat), heartbeat, heartbeat,
                TimeUnit.MILLISECONDS);
        long watch = Math.min(heartbeat, WATCH_MILLIS);
        leaseWatch.scheduleWithFixedDelay(() -> Timers.guarded("lease watch", this::stopLapsed), watch, watch,
                TimeUnit.MILLISECONDS);
        long reaper = config.reaperInterval().toMillis();
        // A random first delay spreads the reapers of many nodes started together.
        long firstReap = ThreadLocalRandom.current().nextLong(reaper / 2, reaper + 1);
        timers.scheduleWithFixedDelay(() -> Timers.guarded("reaper", this::reap), firstReap, reaper,
                TimeUnit.MILLISECONDS);
    }

    private void heartbeat() {
        // First, and whatever else fails: a lost claim's jobs must be given back before their lease
        // ends (retry() handles each claim's failures), and a touch on a connection the network just cut
        // must not skip that for this tick (the long fault run caught one given back too late).
        // Nor may the give-back, whatever it meets (an Error too), skip the leases below.
        try {
            parts.lostClaims().retry();
        } catch (RuntimeException | Error e) {
            LOG.warn("could not give back lost claims; extending leases anyway: {}", Timers.reason(e));
        }
        try {
            touchWorker();
        } catch (RuntimeException | Error e) {
            // the leases below matter more than the registry's last-seen time: extend them anyway (an
            // Error too: the task goes on after one, but this tick's leases would be left unextended)
            LOG.warn("could not touch this worker's registry row; extending leases anyway: {}", Timers.reason(e));
        }
        // An execution completing its job in its own transaction is left out: the transaction ends the
        // lease, and holds the row (the statement would only skip it).
        List<Execution> held = parts.registry().snapshot().stream().filter(execution -> !execution.isCommitting()).toList();
        if (held.isEmpty()) {
            return;
        }
        Map<HeldAttempt, HeartbeatAck> alive = extend(held);
        for (Execution execution : held) {
            HeartbeatAck ack = alive.get(execution.attempt());
            if (ack == null) {
                // Only a running handler can be stopped; an outcome already waiting in the completer
                // is fenced there instead.
                if (execution.isRunning()) {
                    parts.stopper().stop(execution, Execution.StopReason.LEASE_LOST);
                }
            } else if (ack.cancelRequested()) {
                parts.stopper().stop(execution, Execution.StopReason.CANCEL);
            }
        }
    }

    /**
     * Extends the leases of {@code held}; returns the database's answer for each still held. The
     * statement skips a row another transaction holds rather than wait for it (one wait would hold
     * up every other lease of the worker): a progress update, another node's short write (the job's
     * own log and step writes take a lock it does not conflict with). Those are asked again, after
     * short pauses; one still held after the last pass is tried at the next heartbeat, and stopped
     * by the lease watch ({@link #stopLapsed}) if its lease ends first.
     */
    private Map<HeldAttempt, HeartbeatAck> extend(List<Execution> held) {
        Map<HeldAttempt, Execution> asked = new HashMap<>();
        held.forEach(execution -> asked.put(execution.attempt(), execution));
        Map<HeldAttempt, HeartbeatAck> alive = new HashMap<>();
        long pauseMillis = FIRST_BUSY_PAUSE_MILLIS;
        for (int pass = 0; ; pass++) {
            long sent = System.nanoTime(); // before the statement: the database's lease begins after it
            Map<HeldAttempt, HeartbeatAck> answered = new HashMap<>();
            store.heartbeat(config.leaseTtl().toMillis(), asked.keySet()).forEach(ack -> answered.put(ack.lease(), ack));
            for (Map.Entry<HeldAttempt, Execution> entry : asked.entrySet()) {
                HeartbeatAck ack = answered.get(entry.getKey());
                if (ack == null) {
                    alive.remove(entry.getKey()); // lost since an earlier pass found its row held
                } else {
                    alive.put(entry.getKey(), ack);
                    if (ack.extended()) {
                        entry.getValue().leaseRenewed(sent);
                    }
                }
            }
            asked.keySet().removeIf(attempt -> !answered.containsKey(attempt) || answered.get(attempt).extended());
            if (asked.isEmpty() || pass == BUSY_PASSES) {
                return alive;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(pauseMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the timers are shutting down
                return alive;
            }
            pauseMillis *= 2;
        }
    }

    /**
     * Stops each running execution whose lease has passed by this worker's clock since it last began
     * (no heartbeat could extend it: the database unreachable, a heartbeat hung on a connection cut
     * without a reset). Past its lease another worker may take the job, and the two would run it at
     * once; fencing keeps this one's outcome out, but not its work. Counted as a lost lease.
     */
    void stopLapsed() {
        long now = System.nanoTime();
        long lease = config.leaseTtl().toNanos();
        for (Execution execution : parts.registry().snapshot()) {
            if (execution.isRunning() && execution.leaseLapsed(now, lease)) {
                LOG.warn("job {} attempt {}: its lease could not be extended for {} (database unreachable?); stopping"
                        + " its execution, as another worker may take the job now", execution.job().id(),
                        execution.job().attempt(), config.leaseTtl());
                parts.stopper().stop(execution, Execution.StopReason.LEASE_LOST);
            }
        }
    }

    /** Writes this worker's registry row; first of all at start. */
    void registerWorker() {
        int concurrency = config.queues().values().stream().mapToInt(Integer::intValue).sum();
        workers.registerWorker(config.workerId(), config.hostId(), ProcessHandle.current().pid(),
                List.copyOf(new TreeSet<>(config.queues().keySet())), concurrency, config.leaseTtl().toMillis());
    }

    /**
     * The registry shows idle workers as alive too. A worker silent for a day (a paused VM, a long
     * partition) may find its row deleted by retention: it registers again, unless it has stopped
     * meanwhile. A heartbeat under way when the worker closes must not write the row back without
     * its stop: the stop waits for the heartbeat's registration, and should that hang past
     * {@link #STOP_WAIT_SECONDS} (a connection cut without a reset), the heartbeat writes the stop
     * after its registration itself.
     */
    private void touchWorker() {
        registryRow.lock();
        try {
            if (!stopped && !workers.touchWorker(config.workerId())) {
                LOG.info("worker {} found its registry row deleted (silent longer than the retention): registering again",
                        config.workerId());
                registerWorker();
                if (stopped) {
                    markStopped();
                }
            }
        } finally {
            registryRow.unlock();
        }
    }

    /**
     * Settles waiting jobs whose dependencies finished unseen, when this worker takes the turn. A
     * turn that cannot be taken (a role without rights on the turns table, migration 0026) does not
     * stop the search, as it did not before turns; a failure is logged, never stops the rest of the
     * reaper's run (the fold and the gauges do not depend on it), and the next run tries again.
     */
    private void settle() {
        boolean turn;
        try {
            turn = store.takeMaintenanceTurn(config.reaperInterval(), config.workerId());
        } catch (RuntimeException e) {
            LOG.warn("could not take the settle's turn, searching for waiting jobs to settle anyway: {}", e.getMessage());
            turn = true;
        }
        if (!turn) {
            return;
        }
        try {
            int settled = store.settleWaitingJobs(config.workerId());
            if (settled > 0) {
                LOG.info("settled {} waiting jobs whose dependencies finished while they were being enqueued", settled);
            }
        } catch (RuntimeException e) {
            LOG.warn("could not settle waiting jobs: {}{}", e.getMessage(), e.getSuppressed().length == 0 ? ""
                    : " (giving the turn back failed too: " + e.getSuppressed()[0].getMessage() + ")");
        }
    }

    /** The registry's stop of this instance's row (not of another host's or process's instance given the same id since). */
    private void markStopped() {
        workers.stopWorker(config.workerId(), config.hostId(), ProcessHandle.current().pid());
    }

    /** Marks this worker stopped in the registry; no heartbeat leaves its row live after this. */
    void stopWorker() {
        stopped = true;
        boolean locked = false;
        try {
            locked = registryRow.tryLock(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            markStopped();
        } finally {
            if (locked) {
                registryRow.unlock();
            }
        }
    }

    /**
     * Folds the counts' deltas. A fold that fails (a role without rights on a counts table) leaves
     * the counts exact, its deltas waiting for the next fold, and does not end the reaper's run: the
     * gauges after it are refreshed all the same.
     */
    private void foldCounts() {
        try {
            store.compactJobCounts(config.reaperInterval());
        } catch (RuntimeException e) {
            LOG.warn("could not fold the job counts (they stay exact; the deltas wait for the next fold): {}",
                    e.getMessage());
        }
    }

    /**
     * Clears expired leases and tells this node's claimers of those queues (other nodes learn it by
     * notification, and every claimer also looks for orphans once per poll interval however busy
     * it is, or at its next free slot when every slot is taken); then settles waiting jobs whose
     * dependencies finished unseen (when it takes the turn: {@link #settle}), folds the counts
     * table and, when meters are published, refreshes the gauges read from the database.
     */
    private void reap() {
        Map<String, Integer> orphans = store.reapExpiredLeases();
        if (!orphans.isEmpty()) {
            int reaped = orphans.values().stream().mapToInt(Integer::intValue).sum();
            parts.counters().reaped(orphans);
            LOG.info("reaper cleared {} expired leases", reaped);
            orphans.keySet().forEach(parts.claimers()::orphansAvailable);
        }
        settle();
        foldCounts();
        if (parts.counters().publishing()) {
            parts.counters().refreshGauges(store.countJobs(null), workers.countWorkers(config.heartbeatInterval().toMillis()));
        }
    }
}
