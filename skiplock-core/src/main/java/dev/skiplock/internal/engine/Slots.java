package dev.skiplock.internal.engine;

import java.util.concurrent.Semaphore;

/**
 * The concurrency slots of one queue, taken by its claimer: a slot is given back when its
 * execution's outcome is known and its handler has returned (a stopped handler may run on), and
 * the job stays held (claimed, its outcome not yet written) until the outcome is durable. A queue
 * holds at most {@code concurrency + Completer.MAX_BATCH} jobs: when outcomes are written more
 * slowly than handlers finish, the claimer waits instead of claiming ahead without bound (a
 * backlog of finished jobs that still read as running, that a crash would run again, and that
 * took the drain 0.7-0.9 s to write after its last handler).
 * The bound is per queue (the completer is shared: a worker holds at most the sum over its queues).
 * A slot given back after a claim that could not take all it wanted rings the claimer's doorbell,
 * so it claims again at once; a hold rings only once a claim's worth of holds is free, so a
 * completer writing a batch does not wake the claimer for one job at a time. Thread-safe.
 */
final class Slots {
    private final Semaphore free;
    private final Semaphore holds;
    /** Free holds worth waking the claimer for: a full claim, or all it may run at once. */
    private final int holdsWorthAClaim;
    private final Doorbell doorbell;
    private volatile boolean backlog;

    Slots(int concurrency, int claimBatchSize, Doorbell doorbell) {
        this.free = new Semaphore(concurrency);
        this.holds = new Semaphore(concurrency + Completer.MAX_BATCH);
        this.holdsWorthAClaim = Math.min(concurrency, claimBatchSize);
        this.doorbell = doorbell;
    }

    /**
     * Takes up to {@code most} slots, each with its hold; returns how many. Taking none (every slot
     * busy or every hold taken) counts as a backlog: the next slot or hold given back rings.
     */
    int take(int most) {
        int taken = takeMore(most);
        if (taken == 0) {
            backlog = true;
        }
        return taken;
    }

    /**
     * Takes up to {@code most} more slots for a round that already took some ({@link #take}), each
     * with its hold; returns how many. Whether the round leaves a backlog is for its end to say.
     */
    int takeMore(int most) {
        if (most <= 0) {
            return 0;
        }
        int slotsFree = free.drainPermits();
        int holdsFree = holds.drainPermits();
        int taken = Math.min(most, Math.min(slotsFree, holdsFree));
        free.release(slotsFree - taken);
        holds.release(holdsFree - taken);
        return taken;
    }

    /** Gives back slots taken and not used, with their holds. */
    void giveBack(int count) {
        free.release(count);
        holds.release(count);
    }

    /** Whether the last claim filled every slot it had, so more jobs are probably waiting. */
    void backlog(boolean value) {
        backlog = value;
    }

    /** One execution's slot is free again. */
    void release() {
        free.release();
        if (backlog) {
            doorbell.ring();
        }
    }

    /** One execution's job is no longer held: its outcome is durable or dropped, or its lease is gone. */
    void releaseHold() {
        holds.release();
        if (backlog && holds.availablePermits() >= holdsWorthAClaim) {
            doorbell.ring();
        }
    }
}
