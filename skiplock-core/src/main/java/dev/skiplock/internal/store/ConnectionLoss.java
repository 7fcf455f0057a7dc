package dev.skiplock.internal.store;

import java.sql.SQLException;
import java.util.Set;

/**
 * Whether a store call failed because its connection was lost rather than because of what it
 * asked: a database shutting down or restarting (PostgreSQL's SQLState 57P01-57P03) or a connection
 * cut (class 08), as the driver or, while the database is away, the pool says it (HikariCP's
 * timeout carries the SQLState of its last failed connect). Decided by SQLState alone: a pool that
 * is merely busy times out with none, and is no lost connection. Such a call may succeed on a new
 * connection; what to do about it is the caller's: a read may run again as it is, a write only
 * where its second sending, after a commit whose answer was lost, does no harm.
 */
public final class ConnectionLoss {
    private static final Set<String> SHUTDOWN_STATES = Set.of("57P01", "57P02", "57P03");

    private ConnectionLoss() {
    }

    public static boolean causes(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || SHUTDOWN_STATES.contains(sql.getSQLState()))) {
                return true;
            }
        }
        return false;
    }
}
