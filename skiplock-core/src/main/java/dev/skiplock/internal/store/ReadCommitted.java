package dev.skiplock.internal.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Puts a connection in READ COMMITTED for work written for it, and back after: a server or role
 * whose default is REPEATABLE READ or SERIALIZABLE (or a pool configured so) would run it in the
 * snapshot of the transaction's first statement, where a statement must see what committed before
 * it began. SQLite has one level, which is left alone.
 */
final class ReadCommitted {
    /** {@link #set}: the connection's isolation level was not changed. */
    private static final int LEVEL_KEPT = -1;

    private ReadCommitted() {
    }

    /** Work on the connection that may fail as JDBC does. */
    interface Work<T> {
        T run() throws SQLException;
    }

    /**
     * Runs {@code work} with {@code connection} in READ COMMITTED, then gives the connection its
     * level back (a failure to do so is added to the work's own failure, if it failed).
     */
    static <T> T during(Connection connection, Work<T> work) throws SQLException {
        int poolsLevel = set(connection);
        T result;
        try {
            result = work.run();
        } catch (RuntimeException | Error | SQLException e) {
            putBack(connection, poolsLevel, e);
            throw e;
        }
        putBack(connection, poolsLevel, null);
        return result;
    }

    /** Puts {@code connection} in READ COMMITTED if it is at another level; returns the level to put back, or {@link #LEVEL_KEPT}. */
    private static int set(Connection connection) throws SQLException {
        int level = connection.getTransactionIsolation();
        if (level == Connection.TRANSACTION_READ_COMMITTED
                || !connection.getMetaData().supportsTransactionIsolationLevel(Connection.TRANSACTION_READ_COMMITTED)) {
            return LEVEL_KEPT;
        }
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return level;
    }

    private static void putBack(Connection connection, int level, Throwable failure) throws SQLException {
        if (level == LEVEL_KEPT) {
            return;
        }
        try {
            connection.setTransactionIsolation(level);
        } catch (SQLException e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e); // the work's own failure is the one to report
        }
    }
}
