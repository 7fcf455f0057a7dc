package dev.skiplock.conformance;

import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/** A real database for one test: a fresh, empty place to migrate into, and the few raw SQL pokes tests need. */
interface TestDatabase extends AutoCloseable {
    /** Name used in test output, e.g. {@code postgres}. */
    String name();

    /** JDBC URL of this test's own empty database (PostgreSQL: a fresh schema; SQLite: a new temp file). */
    String url();

    /**
     * Moves a running job's lease deadline into the past, as if its worker had stopped heartbeating
     * (a paused process); the next reaper run then clears it.
     */
    void expireLease(DataSource dataSource, UUID jobId);

    /** As {@link #expireLease}, for every running job at once. */
    void expireEveryLease(DataSource dataSource);

    /** Hands a running job's lease to another worker id, as if another worker had taken it over. */
    void stealLease(DataSource dataSource, UUID jobId, String otherWorker);

    /** Inserts a queued job of {@code kind} by plain SQL, so no notification announces it. */
    void insertWithoutNotification(DataSource dataSource, UUID id, String kind);

    /** True if enqueues and cancels in one process wake workers in another (LISTEN/NOTIFY). */
    boolean notifiesAcrossProcesses();

    /**
     * True if two transactions can write at once (PostgreSQL). SQLite has one writer at a time,
     * so an interleaving of two writing transactions cannot happen there.
     */
    boolean concurrentWriters();

    /**
     * Turns a queued job into an orphan of a dead worker in {@code queue}: running, attempt 1, its
     * lease already cleared by a reaper (as if the worker died holding it).
     */
    void makeOrphan(DataSource dataSource, UUID jobId, String queue);

    /** A job id as this database's JDBC driver binds it in raw SQL (PostgreSQL: uuid; SQLite: text). */
    Object id(UUID jobId);

    /** Moves a running job's start {@code millis} into the past, by the database clock. */
    void startedEarlier(DataSource dataSource, UUID jobId, long millis);

    /** Ends a queued job's durable wait {@code name} now, as if its time had passed: the job is claimable at once. */
    void endWait(DataSource dataSource, UUID jobId, String name);

    /** Resets a running job to the state a claim lost in a crash (asynchronous commit) leaves: queued, attempt 0. */
    void loseClaim(DataSource dataSource, UUID jobId);

    /**
     * The tables whose rows add up to the counts per tenant, queue and status: PostgreSQL's deltas
     * first, then their folded sums (migration 0022); SQLite's one table.
     */
    List<String> countTables();

    /** Ends this database's LISTEN sessions from the server side (PostgreSQL); returns how many. */
    default int terminateListeners(DataSource dataSource) {
        throw new UnsupportedOperationException(name() + " has no listener connections");
    }

    /** How many LISTEN sessions this database has now. */
    default int listenerCount(DataSource dataSource) {
        throw new UnsupportedOperationException(name() + " has no listener connections");
    }

    @Override
    void close();
}
