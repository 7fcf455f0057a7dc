package dev.skiplock.internal.engine;

import java.util.concurrent.Semaphore;

/**
 * The concurrency slots of one queue: taken by its claimer, given back by each execution when its
 * outcome is known. A slot given back while the last claim filled every slot rings the claimer's
 * doorbell, so it claims again at once. Thread-safe.
 */
final class Slots {
    private final Semaphore free;
    private final Doorbell doorbell;
    private volatile boolean backlog;

    Slots(int concurrency, Doorbell doorbell) {
        this.free = new Semaphore(concurrency);
        this.doorbell = doorbell;
    }

    /** Takes every free slot; give back the unused ones with {@link #giveBack}. */
    /** Takes up to {@code most} free slots; returns how many. */
    int take(int most) {
        int all = free.drainPermits();
        int taken = Math.min(all, most);
        free.release(all - taken);
        return taken;
    }

    void giveBack(int count) {
        free.release(count);
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
}
