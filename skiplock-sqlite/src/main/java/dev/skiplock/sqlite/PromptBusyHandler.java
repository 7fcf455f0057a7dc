package dev.skiplock.sqlite;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.sqlite.BusyHandler;

/**
 * What a connection does while another holds the write lock: tries again after 0.05 ms, then
 * after pauses doubling up to 1 ms, for at most the busy timeout, then gives up (SQLITE_BUSY).
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
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** The longest pause: a writer behind several others does not keep a core busy trying. */
    private static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** A call this long after the previous one belongs to a new wait, whatever SQLite's count says. */
    private static final long NEW_WAIT_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final long timeoutNanos;
    private long firstBusyAt;
    private long lastCallAt;

    PromptBusyHandler(long timeoutMillis) {
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /** {@code tries}: how often SQLite called this for the same wait (0 at its start). Non-zero: try again. */
    @Override
    protected int callback(int tries) {
        long now = System.nanoTime();
        if (tries == 0 || now - lastCallAt > NEW_WAIT_AFTER_NANOS) {
            firstBusyAt = now;
        } else if (now - firstBusyAt >= timeoutNanos) {
            return 0;
        }
        lastCallAt = now;
        pause(Math.min(LONGEST_PAUSE_NANOS, FIRST_PAUSE_NANOS << Math.min(tries, 5)));
        return 1;
    }

    /**
     * Parks for {@code nanos}, also when the thread was interrupted (a handler's timeout or cancel):
     * park returns at once while the interrupt is set, which would turn the wait into a spin. The
     * interrupt is kept for the code after the statement.
     */
    private static void pause(long nanos) {
        boolean interrupted = Thread.interrupted();
        try {
            LockSupport.parkNanos(nanos);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
