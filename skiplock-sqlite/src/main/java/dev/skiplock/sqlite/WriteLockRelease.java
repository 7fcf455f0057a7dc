package dev.skiplock.sqlite;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Wakes the connections of one pool that wait for the database's write lock ({@link
 * PromptBusyHandler}) as soon as another connection of the pool may have released it: it went
 * back to autocommit, closed, or reset a statement that may write outside a transaction ({@link
 * StatementKeepingConnection}).
 *
 * <p>Why: a drain's claimer and completer take turns on the one write lock, in the same process.
 * Each turn, the waiting one slept out its pause (up to 1 ms, and longer by the kernel's timer
 * slack) after the lock came free. With pauses of 0.01–0.02 ms instead, {@code skiplock bench
 * drain} went 1.12 × as fast (median of 6 interleaved pairs), but such pauses keep a core trying
 * while a long transaction holds the lock. Woken here, a writer tries again when it has a reason
 * to, and the drain went 1.04 × as fast (median of 20 interleaved pairs; a first version, which
 * also woke writers after reads, commit() and rollback(), 1.09 × in 20 pairs on another hour).
 *
 * <p>A wake-up may be for nothing (the statement reset wrote nothing, or a writer that was not
 * waiting took the lock first): the writer then tries once more and waits again. A writer of
 * another pool, in this process or another, is not woken: it waits out its pause.
 */
final class WriteLockRelease {
    /** How many times a connection of the pool may have released the lock. */
    private final AtomicLong releases = new AtomicLong();
    /** The threads parked in {@link #await}, longest waiting first. */
    private final Queue<Thread> waiting = new ConcurrentLinkedQueue<>();

    /** The releases so far: what {@link #await} compares with. */
    long count() {
        return releases.get();
    }

    /**
     * Called by a connection of the pool that may have released the write lock: wakes the writer
     * that has waited longest. One, since one writer takes the lock: woken all at once, the others
     * only found it taken again (HTTP submits on {@code skiplock serve}, eight at a time, went
     * 0.89 × as fast so). The others wait for the next release, or their pause.
     */
    void released() {
        releases.incrementAndGet();
        Thread longestWaiting = waiting.poll();
        if (longestWaiting != null) {
            LockSupport.unpark(longestWaiting);
        }
    }

    /**
     * Parks for at most {@code nanos}, returning as soon as the pool releases the lock after
     * {@code seen} (a {@link #count}) and wakes this thread, at once if it already has released it.
     * The thread is listed before it reads the count, and {@link #released} counts before it reads
     * the list: one of the two sees the other. A wake-up that is not a release (a permit left by an
     * earlier one) parks again for what is left. An interrupted thread pauses all the same: park
     * returns at once while the interrupt is set, and interrupting a thread also gives it a permit,
     * so the interrupt is cleared before each park and set again at the end, for the code after the
     * statement.
     */
    void await(long seen, long nanos) {
        Thread thread = Thread.currentThread();
        long deadline = System.nanoTime() + nanos;
        boolean interrupted = false;
        waiting.add(thread);
        try {
            long left;
            while (releases.get() == seen && (left = deadline - System.nanoTime()) > 0) {
                interrupted |= Thread.interrupted();
                LockSupport.parkNanos(this, left);
            }
        } finally {
            waiting.remove(thread);
            if (interrupted) {
                thread.interrupt();
            }
        }
    }
}
