package dev.skiplock.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.skiplock.Skiplock;
import dev.skiplock.spi.PoolSettings;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pool's connections: durability (FULL unless the URL opts into NORMAL) and how a writer waits for the lock. */
class SqliteDriverTest {
    @TempDir
    Path folder;

    @Test
    void connectionsSyncEveryCommitByDefault() throws SQLException {
        assertThat(pragma("jdbc:sqlite:" + folder.resolve("jobs.db"), "synchronous")).isEqualTo("2"); // FULL
    }

    @Test
    void aUrlMayOptIntoNormal() throws SQLException {
        assertThat(pragma("jdbc:sqlite:" + folder.resolve("jobs.db") + "?synchronous=NORMAL", "synchronous"))
                .isEqualTo("1");
        assertThat(pragma("jdbc:sqlite:" + folder.resolve("jobs.db") + "?synchronous=normal", "journal_mode"))
                .isEqualTo("wal");
    }

    /**
     * After a burst the WAL file is cut back to the limit once a checkpoint emptied it: 100 MB
     * written in one transaction, then one small write. Without the limit the file kept its 100 MB.
     */
    @Test
    void theWalFileShrinksBackAfterABurst() throws SQLException {
        Path file = folder.resolve("jobs.db");
        HikariDataSource pool = (HikariDataSource) new SqliteDriver().createDataSource("jdbc:sqlite:" + file,
                PoolSettings.DEFAULTS);
        try (pool; Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE burst (b BLOB)");
            statement.execute("INSERT INTO burst WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)"
                    + " SELECT zeroblob(1000000) FROM n"); // checkpointed at its commit (over 1,000 pages)
            statement.execute("DELETE FROM burst"); // the next write starts the WAL over, cut to the limit
            assertThat(folder.resolve("jobs.db-wal").toFile().length()).as("the WAL file's size")
                    .isLessThanOrEqualTo(SqliteDriver.WAL_SIZE_LIMIT_BYTES);
        }
    }

    @Test
    void anotherValueIsRejectedNamingTheSetting() {
        assertThatThrownBy(() -> new SqliteDriver().createDataSource("jdbc:sqlite:" + folder.resolve("jobs.db")
                + "?synchronous=OFF", PoolSettings.DEFAULTS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("synchronous:").hasMessageContaining("'OFF'");
        assertThatThrownBy(() -> Skiplock.builder().url("jdbc:sqlite:" + folder.resolve("jobs.db")
                + "?synchronous=fast").build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("synchronous:");
    }

    /**
     * A writer that finds the write lock taken waits in {@link PromptBusyHandler} (parked between
     * tries) and writes once the holder commits; the pool Skiplock creates opens its connections so.
     */
    @Test
    void aWriterWaitsForTheWriteLockAndWritesOnceItIsReleased() throws Exception {
        String url = "jdbc:sqlite:" + folder.resolve("jobs.db") + "?" + SqliteDriver.SETTINGS;
        DataSource pool = new SqliteDriver().createDataSource("jdbc:sqlite:" + folder.resolve("jobs.db"),
                PoolSettings.DEFAULTS);
        try {
            assertThat(((HikariDataSource) pool).getDataSource()).isInstanceOf(SqliteConnections.class);
        } finally {
            ((HikariDataSource) pool).close();
        }
        SqliteConnections connections = new SqliteConnections(url, SqliteDriver.BUSY_TIMEOUT_MILLIS);
        try (Connection holder = connections.getConnection(); Connection writer = connections.getConnection()) {
            holder.createStatement().execute("CREATE TABLE t (v INTEGER)");
            holder.setAutoCommit(false);
            holder.createStatement().execute("INSERT INTO t VALUES (1)"); // holds the write lock until commit
            java.util.concurrent.FutureTask<Integer> write = new java.util.concurrent.FutureTask<>(
                    () -> writer.createStatement().executeUpdate("INSERT INTO t VALUES (2)"));
            Thread thread = Thread.ofPlatform().start(write);
            // Parked between tries (the only wait on the writer's path in Java; SQLite's own busy
            // timeout sleeps in native code, where the thread reads RUNNABLE).
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (thread.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(thread.getState()).isEqualTo(Thread.State.TIMED_WAITING);
            assertThat(write).isNotDone();

            holder.setAutoCommit(true); // commits (commit() would begin the next IMMEDIATE transaction at once)

            assertThat(write.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(1);
            try (ResultSet count = holder.createStatement().executeQuery("SELECT count(*) FROM t")) {
                count.next();
                assertThat(count.getInt(1)).isEqualTo(2);
            }
        }
    }

    /** A writer gives up with SQLITE_BUSY once the busy timeout passed, as with SQLite's own timeout. */
    @Test
    void aWriterGivesUpWhenTheLockIsHeldLongerThanTheBusyTimeout() throws Exception {
        SqliteConnections connections = new SqliteConnections("jdbc:sqlite:" + folder.resolve("jobs.db") + "?"
                + SqliteDriver.SETTINGS, 50);
        try (Connection holder = connections.getConnection(); Connection writer = connections.getConnection()) {
            holder.createStatement().execute("CREATE TABLE t (v INTEGER)");
            holder.setAutoCommit(false);
            holder.createStatement().execute("INSERT INTO t VALUES (1)");

            assertThatThrownBy(() -> writer.createStatement().executeUpdate("INSERT INTO t VALUES (2)"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("SQLITE_BUSY");
            holder.rollback();
        }
    }

    /**
     * Processes opening a fresh file together (found by CI: four clients starting at once, one
     * failed with SQLITE_BUSY): the first connection turns the file to WAL, which takes the write
     * lock without SQLite's busy handler, so a connection opened while another process writes failed
     * at once. It now opens again until the busy timeout; here the writer holds the lock (the file
     * still in its rollback journal), the first open fails, and the second, after the commit, succeeds.
     */
    @Test
    void aConnectionOpenedWhileAnotherTurnsTheFileToWalOpensOnceTheLockIsFree() throws Exception {
        String file = "jdbc:sqlite:" + folder.resolve("jobs.db");
        java.util.concurrent.CountDownLatch refusedOnce = new java.util.concurrent.CountDownLatch(1);
        SqliteConnections connections = new SqliteConnections(file + "?" + SqliteDriver.SETTINGS,
                SqliteDriver.BUSY_TIMEOUT_MILLIS, refusedOnce::countDown);
        try (Connection holder = java.sql.DriverManager.getConnection(file)) { // rollback journal, no busy wait
            holder.createStatement().execute("CREATE TABLE t (v INTEGER)");
            holder.setAutoCommit(false);
            holder.createStatement().execute("INSERT INTO t VALUES (1)"); // holds the write lock until commit
            java.util.concurrent.FutureTask<String> open = new java.util.concurrent.FutureTask<>(() -> {
                try (Connection opened = connections.getConnection();
                        ResultSet mode = opened.createStatement().executeQuery("PRAGMA journal_mode")) {
                    mode.next();
                    return mode.getString(1);
                }
            });
            Thread.ofPlatform().start(open);

            assertThat(refusedOnce.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(open).isNotDone();
            holder.commit();

            assertThat(open.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("wal");
        }
    }

    /** An open that finds the file locked past the busy timeout fails with SQLITE_BUSY, as a statement would. */
    @Test
    void anOpenGivesUpWhenTheLockIsHeldLongerThanTheBusyTimeout() throws Exception {
        String file = "jdbc:sqlite:" + folder.resolve("jobs.db");
        SqliteConnections connections = new SqliteConnections(file + "?" + SqliteDriver.SETTINGS, 50);
        try (Connection holder = java.sql.DriverManager.getConnection(file)) {
            holder.createStatement().execute("CREATE TABLE t (v INTEGER)");
            holder.setAutoCommit(false);
            holder.createStatement().execute("INSERT INTO t VALUES (1)");

            assertThatThrownBy(connections::getConnection).isInstanceOf(SQLException.class)
                    .hasMessageContaining("SQLITE_BUSY");
            holder.rollback();
        }
    }

    /**
     * A database in memory is refused however the URL names it: as {@code :memory:}, or as a URI
     * filename's {@code mode=memory} or {@code vfs=memdb}, which the driver opens without a file.
     * Before, the last two were taken: a queue lost with the process.
     */
    @Test
    void aDatabaseInMemoryIsRefusedHoweverItIsNamed(@TempDir Path dir) {
        for (String url : java.util.List.of("jdbc:sqlite::memory:", "jdbc:sqlite:",
                "jdbc:sqlite:file:" + dir.resolve("a.db") + "?mode=memory&cache=shared",
                "jdbc:sqlite:file:" + dir.resolve("b.db") + "?cache=shared&MODE=MEMORY",
                "jdbc:sqlite:file:" + dir.resolve("c.db") + "?vfs=memdb")) {
            assertThatThrownBy(() -> new SqliteDriver().createDataSource(url, PoolSettings.DEFAULTS)).as(url)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("url: an in-memory SQLite database");
        }
        assertThat(SqliteDriver.inMemory("jdbc:sqlite:" + dir.resolve("memory.db") + "?mode=rwc")).isFalse();
    }

    /** The handler's contract with SQLite: non-zero tries again, zero gives up once the timeout passed. */
    @Test
    void theBusyHandlerTriesAgainUntilItsTimeoutThenGivesUp() {
        PromptBusyHandler patient = new PromptBusyHandler(SqliteDriver.BUSY_TIMEOUT_MILLIS, new WriteLockRelease());
        assertThat(patient.callback(0)).isEqualTo(1);
        assertThat(patient.callback(1)).isEqualTo(1);

        PromptBusyHandler impatient = new PromptBusyHandler(0, new WriteLockRelease());
        assertThat(impatient.callback(0)).isEqualTo(1); // a wait's first call always tries again once
        assertThat(impatient.callback(1)).isEqualTo(0);
    }

    /**
     * The timeout bounds a wait whatever the pauses between SQLite's calls: a call that comes late
     * (a garbage collection, a thread without a core on a loaded machine) is the same wait while
     * SQLite's count goes on. Before, a call over 5 ms after the previous one started the clock
     * again, so one such stall every timeout kept a writer waiting for as long as the lock was held.
     */
    @Test
    void aWaitWhoseCallsComeLateStillEndsAtItsTimeout() {
        PromptBusyHandler handler = new PromptBusyHandler(20, new WriteLockRelease());
        long start = System.nanoTime();
        int tries = 0;
        while (handler.callback(tries) != 0) {
            tries++;
            assertThat(tries).as("tries before giving up").isLessThan(1000);
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(6)); // a late call
        }
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
    }

    /** An interrupted thread (a handler's timeout) still pauses between tries, and keeps its interrupt. */
    @Test
    void anInterruptedWriterKeepsItsInterrupt() {
        PromptBusyHandler handler = new PromptBusyHandler(SqliteDriver.BUSY_TIMEOUT_MILLIS, new WriteLockRelease());
        Thread.currentThread().interrupt();
        try {
            assertThat(handler.callback(0)).isEqualTo(1);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    private static String pragma(String url, String name) throws SQLException {
        DataSource dataSource = new SqliteDriver().createDataSource(url, PoolSettings.DEFAULTS);
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("PRAGMA " + name)) {
            row.next();
            return row.getString(1);
        } finally {
            ((HikariDataSource) dataSource).close();
        }
    }
}
