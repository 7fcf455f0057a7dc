package dev.skiplock.sqlite;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.sqlite.BusyHandler;
import org.sqlite.JDBC;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * Opens the connections of the pool Skiplock creates: as {@code DriverManager} would for the URL
 * (its parameters set the pragmas), each with a {@link PromptBusyHandler} in place of SQLite's
 * sleeping busy timeout, keeping the statements prepared on it ({@link StatementKeepingConnection});
 * an open that finds the file locked is tried again ({@link #open}). The connections opened here
 * wake each other when one may have released the write lock ({@link WriteLockRelease}).
 */
final class SqliteConnections implements DataSource {
    /** The pauses between opens of a locked file: short at first, as the lock is held for a transaction. */
    private static final long FIRST_OPEN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long LONGEST_OPEN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final String jdbcUrl;
    private final long busyTimeoutMillis;
    private final Runnable beforeOpeningAgain;
    private final long firstBusyPauseNanos;
    private final long longestBusyPauseNanos;
    private final WriteLockRelease release = new WriteLockRelease();
    private int loginTimeoutSeconds;
    private PrintWriter logWriter;

    SqliteConnections(String jdbcUrl, long busyTimeoutMillis) {
        this(jdbcUrl, busyTimeoutMillis, () -> { });
    }

    /** {@code beforeOpeningAgain}: run after an open found the file locked, before the pause (tests). */
    SqliteConnections(String jdbcUrl, long busyTimeoutMillis, Runnable beforeOpeningAgain) {
        this(jdbcUrl, busyTimeoutMillis, beforeOpeningAgain, PromptBusyHandler.FIRST_PAUSE_NANOS,
                PromptBusyHandler.LONGEST_PAUSE_NANOS);
    }

    /** With the busy handler's pauses between tries of the write lock (tests choose long ones). */
    SqliteConnections(String jdbcUrl, long busyTimeoutMillis, Runnable beforeOpeningAgain, long firstBusyPauseNanos,
                      long longestBusyPauseNanos) {
        this.jdbcUrl = jdbcUrl;
        this.busyTimeoutMillis = busyTimeoutMillis;
        this.beforeOpeningAgain = beforeOpeningAgain;
        this.firstBusyPauseNanos = firstBusyPauseNanos;
        this.longestBusyPauseNanos = longestBusyPauseNanos;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = open();
        try {
            BusyHandler.setHandler(connection, new PromptBusyHandler(busyTimeoutMillis, firstBusyPauseNanos,
                    longestBusyPauseNanos, release));
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return StatementKeepingConnection.of(connection, release);
    }

    /**
     * Opens a connection, again while the file is locked, for at most the busy timeout. The URL's
     * {@code journal_mode=WAL} turns a new file to WAL on its first connection; that takes the write
     * lock without calling the busy handler, so a process opening the file while another writes to it
     * (several processes starting on a new file) would fail at once with SQLITE_BUSY. Once the file
     * is in WAL the pragma has nothing to change.
     */
    private Connection open() throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(busyTimeoutMillis);
        long pause = FIRST_OPEN_PAUSE_NANOS;
        while (true) {
            try {
                return JDBC.createConnection(jdbcUrl, new Properties());
            } catch (SQLiteException e) {
                boolean busy = (e.getResultCode().code & 0xFF) == SQLiteErrorCode.SQLITE_BUSY.code;
                if (!busy || System.nanoTime() > deadline || Thread.currentThread().isInterrupted()) {
                    throw e;
                }
            }
            beforeOpeningAgain.run();
            LockSupport.parkNanos(pause);
            pause = Math.min(LONGEST_OPEN_PAUSE_NANOS, pause * 2);
        }
    }

    /** A SQLite file has no users: the credentials are not used. */
    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        logWriter = out;
    }

    @Override
    public void setLoginTimeout(int seconds) {
        loginTimeoutSeconds = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeoutSeconds;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no java.util.logging logger");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
