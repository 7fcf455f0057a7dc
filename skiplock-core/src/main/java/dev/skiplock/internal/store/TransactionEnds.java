package dev.skiplock.internal.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * How Skiplock begins and ends a transaction of its own on a pooled connection, so that whatever
 * fails, the connection goes back to the pool with no transaction open and in autocommit, or, if
 * that cannot be told, with autocommit off (the pool then rolls it back), never with work committed
 * that the caller was told failed.
 *
 * <p>A transaction is committed by going back to autocommit (which commits, JDBC says), not with
 * {@code commit()}: SQLite's driver begins the next transaction as soon as {@code commit()} or
 * {@code rollback()} returns, and with {@code BEGIN IMMEDIATE} that takes the write lock again,
 * waiting for any writer that got it in between, only to end an empty transaction when autocommit
 * comes back. sqlite-jdbc also counts itself back in autocommit before its {@code COMMIT} runs, so
 * when that fails (a deferred foreign key) SQLite may keep the transaction open while the driver
 * refuses {@code rollback()}: a {@code ROLLBACK} statement ends it, and is how every rollback here
 * starts.
 */
public final class TransactionEnds {
    private TransactionEnds() {
    }

    /** Leaves autocommit; if that fails (SQLite: the write lock did not come in time), the connection is put back as it was. */
    public static void begin(Connection connection) throws SQLException {
        setAutoCommit(connection, false);
    }

    /** Commits by going back to autocommit; if the commit fails, rolls back what is still open and throws. */
    public static void commit(Connection connection) throws SQLException {
        setAutoCommit(connection, true);
    }

    private static void setAutoCommit(Connection connection, boolean autoCommit) throws SQLException {
        try {
            connection.setAutoCommit(autoCommit);
        } catch (SQLException failed) {
            rollBack(connection, failed);
            throw failed;
        }
    }

    /**
     * Rolls back the transaction open on {@code connection}, if any, and goes back to autocommit.
     * Never throws: its own failures are added to {@code cause}, the failure the caller throws. If
     * no rollback went through, autocommit stays off, so nothing commits the work and the pool
     * rolls it back when the connection is returned.
     */
    public static void rollBack(Connection connection, Throwable cause) {
        if (!rolledBack(connection, cause)) {
            return;
        }
        try {
            connection.setAutoCommit(true);
        } catch (SQLException | RuntimeException e) {
            if (!(e instanceof SQLException sql && noTransaction(sql))) {
                cause.addSuppressed(e);
                return;
            }
            // SQLite after the ROLLBACK statement: sqlite-jdbc is back in autocommit though its COMMIT
            // found nothing to commit. Asked again it has nothing to do, and a pool that wraps it (HikariCP
            // records the mode only when the driver's call returns) learns the mode too.
            try {
                connection.setAutoCommit(true);
            } catch (SQLException | RuntimeException again) {
                cause.addSuppressed(again);
            }
        }
    }

    /**
     * A {@code ROLLBACK} statement first: sqlite-jdbc's {@code rollback()} would begin the next
     * transaction and wait for the write lock, and refuses to run once it counts itself in
     * autocommit (after a failed COMMIT) while SQLite may keep that transaction open.
     */
    private static boolean rolledBack(Connection connection, Throwable cause) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("ROLLBACK");
            return true;
        } catch (SQLException | RuntimeException failed) {
            if (failed instanceof SQLException sql && noTransaction(sql)) {
                return true;
            }
            try {
                connection.rollback();
                return true;
            } catch (SQLException | RuntimeException refused) {
                cause.addSuppressed(failed);
                cause.addSuppressed(refused);
                return false;
            }
        }
    }

    /** SQLite's answer to a COMMIT or ROLLBACK with no transaction open. */
    private static boolean noTransaction(SQLException e) {
        return String.valueOf(e.getMessage()).contains("no transaction is active");
    }
}
