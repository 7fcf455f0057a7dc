package dev.skiplock.internal.engine;

import java.util.concurrent.Semaphore;

/**
 * How much of one execution's log may wait in the completer's queue, in characters (each line
 * counting {@value #LINE_COST} more, for what it costs beside its text): a handler that logs faster
 * than the database takes its lines (a command printing {@code yes}), or while the database is
 * away, waits in {@code log} once its budget is spent, instead of filling the worker's heap, which
 * every job shares. Its lines are then written as fast as the completer can; nothing is dropped.
 * Per execution, so one job's output never holds up another's.
 */
final class LogBudget {
    /** About 2 MiB of heap per execution at most: some thousands of short lines, sixteen of a command's longest. */
    static final int LIMIT = 1 << 20;
    static final int LINE_COST = 64;

    private final Semaphore left = new Semaphore(LIMIT);

    /** What a line of {@code message} costs (a line over the whole budget costs the budget). */
    static int cost(String message) {
        return (int) Math.min(LIMIT, (long) message.length() + LINE_COST);
    }

    /**
     * Takes {@code cost}, waiting until it is left; interrupted while it waits (the execution is
     * being stopped), takes nothing. A thread whose interrupt is already set (a handler winding down
     * after a stop, its lease still held) still takes what is left without waiting.
     */
    void take(int cost) throws InterruptedException {
        if (!left.tryAcquire(cost)) {
            left.acquire(cost);
        }
    }

    /** Gives back what a written (or given up) line took. */
    void give(int cost) {
        left.release(cost);
    }
}
