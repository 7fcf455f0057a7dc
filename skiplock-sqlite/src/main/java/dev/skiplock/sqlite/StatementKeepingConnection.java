package dev.skiplock.sqlite;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * A connection of the pool that keeps the statements prepared on it, for the next caller that
 * prepares the same SQL on it ({@code prepareStatement(String)}; the other forms are not kept).
 *
 * <p>Why: SQLite compiles a statement when it is prepared, together with the programs of every
 * trigger the statement fires, and neither sqlite-jdbc nor HikariCP keeps prepared statements
 * (pgjdbc keeps PostgreSQL's server-prepared ones by itself). A claim or a completion of the jobs
 * table, with its event, count and dependency triggers, took about as long to prepare as to run
 * for 50 jobs.
 *
 * <p>A statement is lent ({@link LentStatement}) out of the kept ones, so two open at once never
 * share one; closing the loan gives it back reset. At most {@value #KEPT} statements are kept, the
 * least recently given back closed first; closing the connection closes them. SQLite prepares a
 * kept statement again by itself when the schema changed (a migration by another process too),
 * and sqlite-jdbc reads the columns of its result again at each execution.
 */
final class StatementKeepingConnection implements InvocationHandler {
    /** More than the distinct statements Skiplock runs on one connection in a steady state. */
    static final int KEPT = 64;

    private final Connection connection;
    private final WriteLockRelease release;
    private final Connection proxy;
    /** Idle statements by SQL, least recently given back first. */
    private final LinkedHashMap<String, PreparedStatement> kept = new LinkedHashMap<>();
    /** Guarded by {@link #kept}: once set, statements given back are closed, not kept. */
    private boolean closed;

    private StatementKeepingConnection(Connection connection, WriteLockRelease release) {
        this.connection = connection;
        this.release = release;
        this.proxy = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, this);
    }

    /**
     * {@code connection}, keeping its prepared statements; closing the result closes {@code
     * connection}. Where it may have released the write lock (back to autocommit, closed, or a
     * statement that may write reset outside a transaction), it tells {@code release}.
     */
    static Connection of(Connection connection, WriteLockRelease release) {
        return new StatementKeepingConnection(connection, release).proxy;
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        switch (method.getName()) {
            case "prepareStatement":
                if (args.length == 1) {
                    return prepare((String) args[0]);
                }
                break;
            case "close":
                try {
                    close();
                } finally {
                    release.released(); // closing rolls back what was open
                }
                return null;
            case "setAutoCommit":
                // Back to autocommit ends the transaction (how Skiplock commits and ends a rollback:
                // TransactionEnds). Not commit() or rollback(): sqlite-jdbc begins the next
                // IMMEDIATE transaction in them, which takes the lock again.
                if (Boolean.TRUE.equals(args[0])) {
                    try {
                        return call(method, connection, args);
                    } finally {
                        release.released(); // also when it failed: SQLite may have ended the transaction all the same
                    }
                }
                break;
            case "unwrap", "isWrapperFor":
                if (isWrapperCall(method, args, self)) {
                    return method.getName().equals("unwrap") ? self : Boolean.TRUE;
                }
                break;
            case "equals":
                return self == args[0];
            case "hashCode":
                return System.identityHashCode(self);
            case "toString":
                return "statement-keeping " + connection;
            default:
                break;
        }
        return call(method, connection, args);
    }

    Connection proxy() {
        return proxy;
    }

    /**
     * A statement of this connection that may write was reset: outside a transaction, that ended
     * its own. A connection that cannot tell (closed) counts as released: a wake-up for nothing
     * costs the writer one try.
     */
    void writeReset() {
        boolean autoCommit;
        try {
            autoCommit = connection.getAutoCommit();
        } catch (SQLException | RuntimeException e) {
            autoCommit = true;
        }
        if (autoCommit) {
            release.released();
        }
    }

    /** The statements kept now (tests). */
    int keptCount() {
        synchronized (kept) {
            return kept.size();
        }
    }

    private PreparedStatement prepare(String sql) throws SQLException {
        PreparedStatement statement;
        synchronized (kept) {
            statement = kept.remove(sql);
        }
        if (statement == null) {
            statement = connection.prepareStatement(sql);
        }
        return LentStatement.lend(sql, statement, this);
    }

    /** A statement given back, reset: kept for the next prepare of its SQL. */
    void giveBack(String sql, PreparedStatement statement) throws SQLException {
        List<PreparedStatement> closing = new ArrayList<>(2);
        synchronized (kept) {
            if (closed) {
                closing.add(statement);
            } else {
                PreparedStatement twin = kept.remove(sql); // so that this one counts as the most recent
                if (twin != null && twin != statement) {
                    closing.add(twin); // two of the same SQL were open at once: one is kept
                }
                kept.put(sql, statement);
            }
            if (kept.size() > KEPT) {
                Iterator<PreparedStatement> eldest = kept.values().iterator();
                closing.add(eldest.next());
                eldest.remove();
            }
        }
        // Not the caller's statement: a failure to close these is not its failure.
        closing.forEach(unkept -> closeQuietly(unkept, null));
    }

    /** Closes the kept statements, then the connection, also when closing them failed. */
    private void close() throws SQLException {
        try {
            closeKept();
        } catch (SQLException | RuntimeException e) {
            try {
                connection.close();
            } catch (SQLException | RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        connection.close();
    }

    private void closeKept() throws SQLException {
        List<PreparedStatement> closing;
        synchronized (kept) {
            closed = true;
            closing = new ArrayList<>(kept.values());
            kept.clear();
        }
        closeAll(closing);
    }

    private static void closeAll(List<PreparedStatement> statements) throws SQLException {
        SQLException failure = null;
        for (PreparedStatement statement : statements) {
            try {
                statement.close();
            } catch (SQLException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Whether {@code method} is {@code unwrap} or {@code isWrapperFor} asking for a type {@code proxy} has. */
    static boolean isWrapperCall(Method method, Object[] args, Object proxy) {
        return (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor"))
                && args[0] instanceof Class<?> type && type.isInstance(proxy);
    }

    /** Closes {@code statement}; a failure is added to {@code failure} if given, else dropped. */
    static void closeQuietly(PreparedStatement statement, Exception failure) {
        try {
            statement.close();
        } catch (SQLException | RuntimeException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            }
        }
    }

    /** {@code method} on {@code target}, throwing what it throws (not wrapped). */
    static Object call(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
