package dev.skiplock.internal.store;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

/**
 * Whether a store call failed because its connection was lost rather than because of what it
 * asked: a database restarting (PostgreSQL's SQLState 57P01-57P03), a connection cut (class 08), a
 * pool with no connection to give while the database is away. Such a call may succeed on a new
 * connection; what to do about it is the caller's (only a read is safe to run again as it is).
 */
public final class ConnectionLoss {
    private ConnectionLoss() {
    }

    public static boolean causes(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLTransientConnectionException || cause instanceof SQLRecoverableException) {
                return true;
            }
            if (cause instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P0"))) {
                return true;
            }
        }
        return false;
    }
}
