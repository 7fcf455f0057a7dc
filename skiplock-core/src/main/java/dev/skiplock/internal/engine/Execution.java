package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.internal.store.HeldAttempt;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One attempt of one job held by this worker, from claim until its outcome is durable.
 * Exactly one of "the handler finished" and "the engine stopped it" wins (a compare-and-set), so
 * an attempt produces at most one completion however a cancel, a timeout and the handler race.
 */
final class Execution {
    enum State { RUNNING, COMPLETING, STOPPED }

    enum StopReason { CANCEL, TIMEOUT, LEASE_LOST, SHUTDOWN }

    private final Job job;
    private final HeldAttempt attempt;
    private final Runnable releaseSlot;
    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
    private final AtomicBoolean slotReleased = new AtomicBoolean();
    private volatile StopReason stopReason;
    private volatile Thread thread;
    private volatile ScheduledFuture<?> timeout;

    Execution(Job job, Runnable releaseSlot) {
        this.job = job;
        this.attempt = new HeldAttempt(job.id(), job.attempt());
        this.releaseSlot = releaseSlot;
    }

    Job job() {
        return job;
    }

    HeldAttempt attempt() {
        return attempt;
    }

    boolean isRunning() {
        return state.get() == State.RUNNING;
    }

    boolean stopRequested() {
        return stopReason != null;
    }

    boolean leaseLost() {
        return stopReason == StopReason.LEASE_LOST;
    }

    void bindThread(Thread runner) {
        thread = runner;
    }

    void setTimeout(ScheduledFuture<?> future) {
        timeout = future;
    }

    /** The handler returned or threw: true if its outcome counts (nothing stopped it first). */
    boolean finishByHandler() {
        boolean won = state.compareAndSet(State.RUNNING, State.COMPLETING);
        cancelTimeout();
        return won;
    }

    /** Asks the execution to stop: true if this call decided the attempt's fate (it was still running). */
    boolean stop(StopReason reason) {
        if (!state.compareAndSet(State.RUNNING, State.STOPPED)) {
            return false;
        }
        stopReason = reason;
        cancelTimeout();
        Thread runner = thread;
        if (runner != null) {
            runner.interrupt();
        }
        return true;
    }

    /** Frees this execution's concurrency slot; idempotent. */
    void releaseSlot() {
        if (slotReleased.compareAndSet(false, true)) {
            releaseSlot.run();
        }
    }

    private void cancelTimeout() {
        ScheduledFuture<?> future = timeout;
        if (future != null) {
            future.cancel(false);
        }
    }
}
