package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.HeldAttempt;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * One execution of one job held by this worker, from claim (or adoption) until its outcome is
 * durable. Exactly one of "the handler returned" and "the engine stopped it" wins (a
 * compare-and-set), so an execution ends with at most one outcome however a cancel, a timeout
 * and the handler race.
 *
 * <p>A stop interrupts the handler's thread, also when it comes before the thread started (the
 * interrupt is delivered when the thread binds), and never while that thread is inside a database
 * call of its own ({@link #storeCall}): an interrupt there closes a virtual thread's socket, so it
 * is delivered when the call returns instead.
 */
final class Execution {
    enum StopReason { CANCEL, TIMEOUT, LEASE_LOST, SHUTDOWN }

    /**
     * The handler started a durable wait ({@link Steps}): whatever it returns, the attempt ends as
     * a snooze of {@code delay}; {@code signal} names the signal it waits for, if any.
     */
    record Suspension(java.time.Duration delay, String signal) {
    }

    /** Where the execution stands; changed by one compare-and-set, so a stop and its reason are seen together. */
    private record State(String name, StopReason stopReason) {
        static final State RUNNING = new State("running", null);
        static final State COMPLETING = new State("completing", null);
        /** The handler is completing its job in its own transaction: no stop can decide the outcome now. */
        static final State COMMITTING = new State("committing", null);

        boolean stopped() {
            return stopReason != null;
        }
    }

    private final Job job;
    private final HeldAttempt attempt;
    private final UUID executionId;
    private final long elapsedMillis;
    private final int snoozes;
    private final Runnable releaseSlot;
    private final Runnable releaseHold;
    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
    /** The outcome was handed over (or none is to come): the outcome's use of the slot ended. */
    private final AtomicBoolean outcomeHandedOver = new AtomicBoolean();
    /**
     * What keeps the slot: the outcome until it is handed over, and the handler's thread while it
     * runs. A stop decides the outcome at once, but a handler that ignores its interrupt runs on;
     * its slot is freed when it returns, so the queue never runs more handlers than its concurrency.
     */
    private final AtomicInteger slotUsers = new AtomicInteger(1);
    /** When (System.nanoTime) a stop decided the outcome; 0 before. */
    private volatile long stopNanos;
    private static final long RAN_ON_WARNING_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Execution.class);
    private final AtomicBoolean holdReleased = new AtomicBoolean();
    private final Object interruptLock = new Object();
    private Thread thread;
    private boolean inStoreCall;
    private volatile ScheduledFuture<?> timeout;
    private volatile Suspension suspension;
    private volatile boolean completedInTransaction;
    /**
     * What of its log may wait in the completer's queue: made at its first line, since most
     * executions log none (issue #12: a semaphore per job was a hundredth of a drain's allocations).
     */
    private volatile LogBudget logBudget;
    /** When this worker took the attempt, and when its outcome was handed over (run-time meter). */
    private final long takenNanos = System.nanoTime();
    private volatile long outcomeNanos;
    /**
     * When (System.nanoTime) the lease last began: at this worker taking the job (its claim's
     * answer), then at each heartbeat that extended it (sent before its statement).
     */
    private volatile long leaseRenewedNanos = takenNanos;

    /** An execution of {@code claimed} that gives back its queue's slot and hold through {@code slots}. */
    Execution(Claimed claimed, Slots slots) {
        this(claimed, slots::release, slots::releaseHold);
    }

    /** An execution outside any queue's slots (in-memory jobs). */
    Execution(Claimed claimed) {
        this(claimed, () -> { }, () -> { });
    }

    private Execution(Claimed claimed, Runnable releaseSlot, Runnable releaseHold) {
        this.job = claimed.job();
        this.attempt = claimed.lease();
        this.executionId = claimed.executionId();
        this.elapsedMillis = claimed.elapsedMillis();
        this.snoozes = claimed.snoozes();
        this.releaseSlot = releaseSlot;
        this.releaseHold = releaseHold;
    }

    Job job() {
        return job;
    }

    /** The outcome was handed to the completer (the first hand-over counts). */
    void markOutcome() {
        if (outcomeNanos == 0) {
            outcomeNanos = System.nanoTime();
        }
    }

    /** From this worker taking the attempt to its outcome (or to now, before one). */
    long runNanos() {
        long end = outcomeNanos;
        return (end == 0 ? System.nanoTime() : end) - takenNanos;
    }

    /** A heartbeat sent at {@code sentNanos} (System.nanoTime) extended the lease. */
    void leaseRenewed(long sentNanos) {
        leaseRenewedNanos = sentNanos;
    }

    /** Whether {@code leaseNanos} have passed at {@code nowNanos} since the lease last began. */
    boolean leaseLapsed(long nowNanos, long leaseNanos) {
        return nowNanos - leaseRenewedNanos - leaseNanos > 0;
    }

    LogBudget logBudget() {
        LogBudget budget = logBudget;
        if (budget == null) {
            synchronized (this) { // the handler's threads may log at once: one budget for all of them
                budget = logBudget;
                if (budget == null) {
                    budget = new LogBudget();
                    logBudget = budget;
                }
            }
        }
        return budget;
    }

    /** The lease this execution's writes are fenced on. */
    HeldAttempt attempt() {
        return attempt;
    }

    /** The token of the claim that started the execution, the same after every adoption. */
    UUID executionId() {
        return executionId;
    }

    /** How long the attempt had run (database clock) when this worker took it. */
    long elapsedMillis() {
        return elapsedMillis;
    }

    /** How many of the job's attempts before this one ended in a snooze or a durable wait. */
    int snoozes() {
        return snoozes;
    }

    boolean isRunning() {
        return state.get() == State.RUNNING;
    }

    boolean stopRequested() {
        return state.get().stopped();
    }

    /** Why a stop ended the execution; {@code null} if none did. */
    StopReason stopReason() {
        return state.get().stopReason();
    }

    boolean leaseLost() {
        return state.get().stopReason() == StopReason.LEASE_LOST;
    }

    /** The handler runs on {@code runner} from now on; a stop that came first interrupts it at once. */
    void bindThread(Thread runner) {
        synchronized (interruptLock) {
            thread = runner;
            if (state.get().stopped()) {
                runner.interrupt();
            }
        }
    }

    /** The handler started a durable wait: the attempt's outcome is that wait. */
    void suspend(Suspension wait) {
        suspension = wait;
    }

    boolean suspended() {
        return suspension != null;
    }

    /** The wait the handler started, or {@code null}. */
    Suspension suspension() {
        return suspension;
    }

    /** The handler wrote the job's outcome in a transaction of its own ({@code completeInTransaction}). */
    void completedInTransaction() {
        completedInTransaction = true;
    }

    boolean isCompletedInTransaction() {
        return completedInTransaction;
    }

    /** The timeout's timer; cancelled at once if the outcome was already decided (it could not stop anything). */
    void setTimeout(ScheduledFuture<?> future) {
        timeout = future;
        State now = state.get();
        if (now != State.RUNNING && now != State.COMMITTING) {
            cancelTimeout();
        }
    }

    /**
     * The handler is about to complete its job in its own transaction: from now on no stop
     * (cancel, timeout, lost lease, shutdown) decides the outcome, and the heartbeat leaves the
     * job's row alone (the transaction holds it). False if a stop came first.
     */
    boolean beginCommit() {
        return state.compareAndSet(State.RUNNING, State.COMMITTING);
    }

    /**
     * The handler's transaction rolled back: the execution runs on and can be stopped again (its
     * outcome stays a failure: {@link #isCompletedInTransaction} still holds).
     */
    void commitAbandoned() {
        state.compareAndSet(State.COMMITTING, State.RUNNING);
    }

    boolean isCommitting() {
        return state.get() == State.COMMITTING;
    }

    /** The handler returned or threw: true if its outcome is the one to complete (nothing stopped it first). */
    boolean completeByHandler() {
        boolean won = state.compareAndSet(State.RUNNING, State.COMPLETING)
                || state.compareAndSet(State.COMMITTING, State.COMPLETING);
        cancelTimeout();
        return won;
    }

    /** Asks the execution to stop: true if this call decided the attempt's outcome (it was still running). */
    boolean stop(StopReason reason) {
        if (!state.compareAndSet(State.RUNNING, new State("stopped", reason))) {
            return false;
        }
        stopNanos = System.nanoTime();
        cancelTimeout();
        synchronized (interruptLock) {
            if (thread != null && !inStoreCall) {
                thread.interrupt();
            }
        }
        return true;
    }

    /**
     * Runs a database call of the handler's own (progress, logged lines) with interrupts held back:
     * a pending interrupt is restored afterwards, and a stop during the call interrupts after it.
     */
    <T> T storeCall(Supplier<T> call) {
        boolean handlerThread;
        boolean interrupted = false;
        synchronized (interruptLock) {
            handlerThread = Thread.currentThread() == thread;
            if (handlerThread) {
                inStoreCall = true;
                interrupted = Thread.interrupted();
            }
        }
        if (!handlerThread) {
            return call.get(); // a stop interrupts only the handler's own thread
        }
        try {
            return call.get();
        } finally {
            synchronized (interruptLock) {
                inStoreCall = false;
                if (interrupted || state.get().stopped()) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * Whether this execution's outcome is yet to reach the completer: whoever decides it (the
     * handler, or a stop other than a shutdown's, which close gives back itself) hands it over,
     * then frees the slot.
     */
    boolean outcomeOutstanding() {
        return !outcomeHandedOver.get();
    }

    /**
     * The outcome was handed over, or none is to come: frees the concurrency slot, or leaves it to
     * the handler's thread if that still runs ({@link #runHandler}); idempotent.
     */
    void releaseSlot() {
        if (outcomeHandedOver.compareAndSet(false, true)) {
            leaveSlot();
        }
    }

    /**
     * Runs {@code handler} on {@code threads}, keeping the slot until it returns. False, and nothing
     * runs, when the slot is already free: the outcome was handed over (a stop decided it) and no
     * handler thread holds the slot, so none may start on it.
     */
    boolean runHandler(Executor threads, Runnable handler) {
        if (slotUsers.getAndUpdate(users -> users == 0 ? 0 : users + 1) == 0) {
            return false;
        }
        try {
            threads.execute(() -> {
                try {
                    handler.run();
                } finally {
                    warnIfItRanOn();
                    leaveSlot();
                }
            });
            return true;
        } catch (RuntimeException | Error e) {
            leaveSlot();
            throw e;
        }
    }

    /**
     * A handler that ignored its stop for more than {@link #RAN_ON_WARNING_NANOS} held its queue's
     * slot all that time: said once it returns, since nothing else shows why the queue ran fewer.
     */
    private void warnIfItRanOn() {
        long stopped = stopNanos;
        StopReason reason = stopReason();
        if (reason == null || reason == StopReason.SHUTDOWN || stopped == 0) {
            return;
        }
        long ranOn = System.nanoTime() - stopped;
        if (ranOn > RAN_ON_WARNING_NANOS) {
            LOG.warn("job {} attempt {}: its handler returned {} ms after its stop ({}), holding its queue's slot until"
                    + " then; a handler should end when interrupted", job.id(), job.attempt(), ranOn / 1_000_000,
                    reason.name().toLowerCase(java.util.Locale.ROOT));
        }
    }

    private void leaveSlot() {
        if (slotUsers.decrementAndGet() == 0) {
            releaseSlot.run();
        }
    }

    /** Its job is no longer held by this worker ({@link Registry#remove}); idempotent. */
    void releaseHold() {
        if (holdReleased.compareAndSet(false, true)) {
            releaseHold.run();
        }
    }

    private void cancelTimeout() {
        ScheduledFuture<?> future = timeout;
        if (future != null) {
            future.cancel(false);
        }
    }
}
