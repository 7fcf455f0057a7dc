package dev.skiplock.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells completions whether any process follows job events, so that a completion nobody follows
 * announces nothing: naming every finished job in {@code e:} notifications cost PostgreSQL about
 * 5–8 µs a job, and every listening process read them (issue #12).
 *
 * <p>The handshake, on advisory locks of the schema's follow key and its {@link #SLOTS} slots:
 * while this process has followers, a connection of its own holds every slot in share mode;
 * {@code complete_jobs} tries the slots in exclusive mode until its commit, from its own
 * ({@code pg_backend_pid() % SLOTS}) to the next until one try succeeds, and announces its jobs
 * when every try fails. A completion that took a slot, so announces nothing, holds it until it
 * commits: a follower taking the share of every slot waits for that commit, and then reads what it
 * wrote. One that tries after the share is held fails at every slot and announces. Another
 * process's completion holding a slot only sends the tries on to the next. With a single try, two
 * processes whose completers' backends met in a slot (a completer usually gets the same connection
 * back from its pool) met at every overlap: in two of four drains by four processes, a fifth of the
 * jobs were announced to nobody (issue #12). A completion still announces for nothing while the
 * share lingers after the last follower, or when completions hold all {@link #SLOTS}.
 *
 * <p>The wait for the share is bounded ({@link #TAKE_TIMEOUT_MILLIS} for all the slots: a
 * statement timeout, since a lock timeout bounds each slot's wait alone, and completions that come
 * while the follower takes the slots may each take one ahead of it): a completion in an
 * application's transaction ({@code completeInTransaction}) holds its slot until the application
 * commits. A follower that could not take the share in time reads anyway; it reads again within a
 * second, as every follower does (and as on SQLite), so a failure here costs only time. The share
 * is kept until no follower came for {@link #LINGER_NANOS}.
 */
final class FollowLock implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FollowLock.class);
    /** Slots of the follow key; complete_jobs names the same number (FollowLockTest). */
    static final int SLOTS = 8;
    /** How long the share is kept after the last follow: followers come in bursts (a page's SSE streams). */
    static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** The longest a follower waits for completions that hold a slot without announcing. */
    static final long TAKE_TIMEOUT_MILLIS = 1_000;
    /** How long after a failure to take the share no follower tries again (a database refusing connections). */
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** How often a held share's connection is checked (a round trip): a broken one lost the share. */
    private static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final String TAKE = "SELECT count(pg_advisory_lock_shared(hashtext('skiplock-followers:' || current_schema()), slot))"
            + " FROM generate_series(0, " + (SLOTS - 1) + ") AS slot";

    private final Supplier<Connection> connections;
    /** Guards the fields; a follower holds it while it takes the share, the listener's release only tries it. */
    private final ReentrantLock guard = new ReentrantLock();
    /** The connection holding the share; read without the guard by a follower's quick check. */
    private volatile Connection holder;
    private volatile long lastFollowNanos;
    private long lastCheckNanos;
    private long retryAfterNanos;
    private boolean closed;

    /** {@code connections} opens the connection that holds the share (one of its own, kept while followers come). */
    FollowLock(Supplier<Connection> connections) {
        this.connections = connections;
    }

    /**
     * Returns once completions from now on announce their jobs to listening processes, or once
     * taking the share failed or timed out (the follower then reads again within a second).
     */
    void follow() throws InterruptedException {
        lastFollowNanos = System.nanoTime();
        if (holder != null) {
            return; // held: each read of a follower's wait passes here
        }
        if (!guard.tryLock(TAKE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
            return; // another follower is taking it: bounded like its own wait
        }
        try {
            if (holder != null || closed || System.nanoTime() - retryAfterNanos < 0) {
                return;
            }
            Connection connection = null;
            try {
                connection = connections.get();
                // The timeouts last for this transaction only (SET LOCAL): a connection borrowed from an
                // application's pool keeps its own settings. The shares are the session's: they outlast it.
                connection.setAutoCommit(false);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SET LOCAL statement_timeout = " + TAKE_TIMEOUT_MILLIS);
                    // The statement's bound alone, whatever lock_timeout the role sets
                    statement.execute("SET LOCAL lock_timeout = 0");
                    statement.execute(TAKE); // waits for completions that took a slot without announcing
                }
                connection.commit();
                connection.setAutoCommit(true);
                holder = connection;
                lastCheckNanos = System.nanoTime();
            } catch (SQLException | RuntimeException e) {
                retryAfterNanos = System.nanoTime() + RETRY_NANOS;
                boolean timedOut = e instanceof SQLException sql && "57014".equals(sql.getSQLState());
                // A timeout is an application's open transaction or a run of completions, not a fault: not a warning.
                LOG.atLevel(timedOut ? org.slf4j.event.Level.DEBUG : org.slf4j.event.Level.WARN)
                        .log("could not tell completions that this process follows job events (trying again in {} s;"
                                + " followers read again each second meanwhile): {}",
                                TimeUnit.NANOSECONDS.toSeconds(RETRY_NANOS), e.getMessage());
                release(connection);
            }
        } finally {
            guard.unlock();
        }
    }

    /**
     * Gives the share back once no follower came for {@link #LINGER_NANOS}, or when its connection
     * broke. Called by the listener's thread, which must not wait: skipped while a follower takes it.
     */
    void releaseIfIdle() {
        if (!guard.tryLock()) {
            return;
        }
        try {
            if (holder == null) {
                return;
            }
            long now = System.nanoTime();
            boolean idle = now - lastFollowNanos > LINGER_NANOS;
            boolean check = now - lastCheckNanos > CHECK_NANOS;
            if (check) {
                lastCheckNanos = now;
            }
            if (idle || (check && isBroken(holder))) {
                release(holder);
                holder = null;
            }
        } finally {
            guard.unlock();
        }
    }

    @Override
    public void close() {
        guard.lock();
        try {
            closed = true;
            release(holder);
            holder = null;
        } finally {
            guard.unlock();
        }
    }

    private static boolean isBroken(Connection connection) {
        try {
            return !connection.isValid(2);
        } catch (SQLException e) {
            return true;
        }
    }

    /**
     * Gives up the share and the connection. A connection borrowed from an application's pool goes
     * back to it, which keeps the session: its advisory locks are released first, and a connection
     * whose release failed is aborted rather than given back holding them (a closed session
     * releases them).
     */
    private static void release(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback(); // a take that failed left its transaction open
                connection.setAutoCommit(true);
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT pg_advisory_unlock_all()");
            }
        } catch (SQLException e) {
            LOG.debug("releasing the follow lock failed; its connection is aborted: {}", e.getMessage());
            try {
                connection.abort(Runnable::run); // before the close below: a pool then discards it
            } catch (SQLException | RuntimeException ignored) {
                // already closed: the session ended, and its locks with it
            }
        }
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.debug("closing the follow lock's connection failed: {}", e.getMessage());
        }
    }
}
