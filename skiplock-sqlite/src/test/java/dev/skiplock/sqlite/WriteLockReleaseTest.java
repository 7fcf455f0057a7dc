package dev.skiplock.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer waiting for the write lock is woken by the connection of its pool that releases it
 * ({@link WriteLockRelease}). The pool's busy pauses here last a minute, so a writer that was not
 * woken would still be parked when the test gives up on it (after 30 s). Skiplock ends every
 * transaction by going back to autocommit ({@code TransactionEnds}): sqlite-jdbc's {@code commit()}
 * and {@code rollback()} begin the next IMMEDIATE transaction, which takes the lock again, so they
 * wake nobody.
 */
class WriteLockReleaseTest {
    private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

    @TempDir
    Path folder;

    @FunctionalInterface
    interface Release {
        void release(Connection holder) throws SQLException;
    }

    @Test
    void aCommitWakesTheWriter() throws Exception {
        assertWokenWhenTheHolder(holder -> holder.setAutoCommit(true)); // Skiplock commits so (TransactionEnds)
    }

    @Test
    void closingTheHolderWakesTheWriter() throws Exception {
        assertWokenWhenTheHolder(Connection::close);
    }

    /**
     * Outside a transaction, an {@code INSERT ... RETURNING} whose rows were not all read keeps its
     * write uncommitted and the lock taken until the statement is reset: closing it (the loan given
     * back) commits, and wakes the writer.
     */
    @Test
    void aStatementResetOutsideATransactionWakesTheWriter() throws Exception {
        SqliteConnections connections = pool();
        // The holder closes first: a writer closed while it still waited would wait for its statement
        try (Connection writer = connections.getConnection();
                Connection holder = connections.getConnection()) {
            holder.createStatement().execute("CREATE TABLE t (v INTEGER)");
            PreparedStatement returning = holder.prepareStatement("INSERT INTO t VALUES (1), (2) RETURNING v");
            ResultSet rows = returning.executeQuery();
            assertThat(rows.next()).isTrue(); // one row of two read: the insert is not committed

            FutureTask<Integer> write = waitingWrite(writer);
            returning.close();

            assertThat(write.get(30, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(count(writer)).isEqualTo(3);
        }
    }

    /** A release counted before the wait began ends it at once (the writer tries again). */
    @Test
    void aReleaseSinceTheWriterLookedEndsItsWaitAtOnce() {
        WriteLockRelease release = new WriteLockRelease();
        long seen = release.count();
        release.released();

        long start = System.nanoTime();
        release.await(seen, MINUTE_NANOS);

        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(30)); // not the minute
    }

    /** Each release wakes one writer, the one that waited longest; the other waits for the next. */
    @Test
    void theWriterThatWaitedLongestIsWokenFirst() throws Exception {
        WriteLockRelease release = new WriteLockRelease();
        long seen = release.count();
        FutureTask<Void> first = parked(release, seen);
        FutureTask<Void> second = parked(release, seen);

        release.released();
        first.get(30, TimeUnit.SECONDS);
        assertThat(second).isNotDone();

        release.released();
        second.get(30, TimeUnit.SECONDS);
    }

    /**
     * An interrupted writer (a handler's timeout) pauses between tries all the same, and keeps its
     * interrupt: interrupting a thread also gives it a park permit, which would end every pause at
     * once and turn the wait into a spin. Two pauses of 100 ms take at least 200 ms.
     */
    @Test
    void anInterruptedWriterStillPausesBetweenTries() {
        long pause = TimeUnit.MILLISECONDS.toNanos(100);
        PromptBusyHandler handler = new PromptBusyHandler(TimeUnit.MINUTES.toMillis(2), pause, pause,
                new WriteLockRelease());
        Thread.currentThread().interrupt();
        try {
            long start = System.nanoTime();
            assertThat(handler.callback(0)).isEqualTo(1);
            assertThat(handler.callback(1)).isEqualTo(1);

            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(2 * pause);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    /** A thread awaiting a release after {@code seen} for a minute, returned once it is parked. */
    private static FutureTask<Void> parked(WriteLockRelease release, long seen) {
        FutureTask<Void> wait = new FutureTask<>(() -> release.await(seen, MINUTE_NANOS), null);
        Thread thread = Thread.ofPlatform().start(wait);
        awaitParked(thread);
        return wait;
    }

    private static void awaitParked(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(LockSupport.getBlocker(thread) instanceof WriteLockRelease) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(LockSupport.getBlocker(thread)).as("the thread waits for the lock")
                .isInstanceOf(WriteLockRelease.class);
    }

    private void assertWokenWhenTheHolder(Release release) throws Exception {
        SqliteConnections connections = pool();
        // The holder closes first: a writer closed while it still waited would wait for its statement
        try (Connection writer = connections.getConnection();
                Connection holder = connections.getConnection()) {
            holder.createStatement().execute("CREATE TABLE t (v INTEGER)");
            holder.setAutoCommit(false);
            holder.createStatement().execute("INSERT INTO t VALUES (1)"); // holds the write lock until it ends

            FutureTask<Integer> write = waitingWrite(writer);
            release.release(holder);

            assertThat(write.get(30, TimeUnit.SECONDS)).isEqualTo(1);
        }
    }

    /** An insert on {@code writer}, started on a thread of its own, once that thread waits for the lock. */
    private static FutureTask<Integer> waitingWrite(Connection writer) {
        FutureTask<Integer> write = new FutureTask<>(() -> {
            try (PreparedStatement insert = writer.prepareStatement("INSERT INTO t VALUES (2)")) {
                return insert.executeUpdate();
            }
        });
        awaitParked(Thread.ofPlatform().start(write));
        assertThat(write).isNotDone();
        return write;
    }

    private static int count(Connection connection) throws SQLException {
        try (ResultSet count = connection.createStatement().executeQuery("SELECT count(*) FROM t")) {
            count.next();
            return count.getInt(1);
        }
    }

    /** Connections to a file in the test's folder whose busy handler pauses a minute between tries. */
    private SqliteConnections pool() {
        return new SqliteConnections("jdbc:sqlite:" + folder.resolve("jobs.db") + "?" + SqliteDriver.SETTINGS,
                TimeUnit.MINUTES.toMillis(2), () -> { }, MINUTE_NANOS, MINUTE_NANOS);
    }
}
