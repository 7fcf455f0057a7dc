package dev.skiplock.sqlite;

import java.util.concurrent.TimeUnit;
import org.sqlite.BusyHandler;

/**
 * What a connection does while another holds the write lock: tries again after 0.05 ms, then
 * after pauses as long as it has waited so far, up to 1 ms, for at most the busy timeout, then
 * gives up (SQLITE_BUSY). A pause ends early when another connection of the same pool released
 * the lock ({@link WriteLockRelease}): the pauses follow the time waited, not the tries, so tries
 * after such wake-ups do not lengthen them.
 *
 * <p>Why not SQLite's own busy timeout: it sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50 and then
 * 100 ms between tries, so a writer that found the lock taken three or four times waits 18–33 ms
 * although each holder kept it for about one: HTTP submits at 1,000/s against {@code skiplock
 * serve} on SQLite, whose workers claim and complete through the same lock, had a p99 of 74 ms.
 * A try costs a few microseconds; a short transaction is what the other writers wait for.
 *
 * <p>One per connection: SQLite calls it on the thread that uses the connection. A statement with
 * a query timeout ({@code Statement.setQueryTimeout}) or {@code PRAGMA busy_timeout} on a pooled
 * connection puts SQLite's own timeout back for that connection's life: Skiplock uses neither.
 */
final class PromptBusyHandler extends BusyHandler {
    /** The first pause between tries: short, since a Skiplock write transaction lasts about a millisecond. */
    static final long FIRST_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** The longest pause: a writer behind several others does not keep a core busy trying. */
    static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final long timeoutNanos;
    private final long firstPauseNanos;
    private final long longestPauseNanos;
    private final WriteLockRelease release;
    private long firstBusyAt;
    /** The pool's releases as the next try of the lock will have seen them. */
    private long releasesSeen;

    /** Waits with the prompt pauses, woken by the releases of {@code release}'s pool. */
    PromptBusyHandler(long timeoutMillis, WriteLockRelease release) {
        this(timeoutMillis, FIRST_PAUSE_NANOS, LONGEST_PAUSE_NANOS, release);
    }

    /**
     * Pauses of at least {@code firstPauseNanos}, as long as the wait so far, at most {@code
     * longestPauseNanos} (tests choose long ones).
     */
    PromptBusyHandler(long timeoutMillis, long firstPauseNanos, long longestPauseNanos, WriteLockRelease release) {
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.firstPauseNanos = firstPauseNanos;
        this.longestPauseNanos = longestPauseNanos;
        this.release = release;
    }

    /**
     * {@code tries}: how often SQLite called this for the same wait (0 at its start: SQLite counts
     * afresh for each statement it runs). Non-zero: try again. The count alone says where a wait
     * begins: a call that comes late (a garbage collection, a thread without a core) is the same
     * wait, so the timeout bounds it. A wait's first pause takes the releases as they are now: one
     * between SQLite's failed try and this call goes unseen, and costs at most that first, shortest pause.
     */
    @Override
    protected int callback(int tries) {
        long now = System.nanoTime();
        if (tries == 0) {
            firstBusyAt = now;
            releasesSeen = release.count();
        } else if (now - firstBusyAt >= timeoutNanos) {
            return 0;
        }
        release.await(releasesSeen, Math.min(longestPauseNanos, Math.max(firstPauseNanos, now - firstBusyAt)));
        releasesSeen = release.count();
        return 1;
    }
}
