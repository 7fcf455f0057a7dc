package dev.skiplock.sqlite;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.sqlite.core.CoreStatement;
import org.sqlite.core.DB;

/**
 * One loan of a statement a {@link StatementKeepingConnection} keeps: behaves as the statement
 * until closed, then gives it back reset, or closes it when it cannot be reused as new.
 *
 * <p>Reset: the SQLite statement is reset whatever the caller left (a read stopped before its
 * last row keeps the connection's read transaction open, so that connection would go on reading
 * an old snapshot and hold back WAL checkpoints; an {@code UPDATE ... RETURNING} whose rows nobody
 * read keeps its write uncommitted and the write lock taken); its parameters, batch and warnings
 * are cleared. Closed instead of kept: a statement whose result set its caller left open
 * (sqlite-jdbc has one result set object per statement: that caller's would show the next
 * caller's rows), one whose settings were changed ({@link #STICKY_SETTERS}) or whose generated
 * keys were asked for, one sqlite-jdbc closed after an error (all but BUSY, LOCKED, CONSTRAINT
 * and MISUSE: a unique violation leaves it open and it is kept). A caller that closed its result
 * set, or holds what {@code unwrap} or {@code ResultSet.getStatement} gave it, must not use them
 * after closing the statement (JDBC's rule; here they would not throw once the statement is lent
 * again).
 *
 * <p>Unlike a new statement, a reused one answers {@code getMetaData()}, {@code getResultSet()}
 * and {@code getUpdateCount()} only once executed.
 */
final class LentStatement implements InvocationHandler {
    /** Settings that outlive one use of a statement. */
    private static final Set<String> STICKY_SETTERS = Set.of("setMaxRows", "setLargeMaxRows", "setFetchSize",
            "setFetchDirection", "setQueryTimeout", "setEscapeProcessing", "setCursorName", "setPoolable",
            "closeOnCompletion");

    private final String sql;
    /**
     * A SELECT, or a PRAGMA (Skiplock's read or set a connection's setting): it cannot have taken
     * the write lock, so its reset releases nothing, and wakes no writer for nothing.
     */
    private final boolean reads;
    private final PreparedStatement statement;
    private final StatementKeepingConnection owner;
    private final List<ResultSet> results = new ArrayList<>(1);
    private boolean reusable = true;
    private volatile boolean closed;

    private LentStatement(String sql, PreparedStatement statement, StatementKeepingConnection owner) {
        this.sql = sql;
        this.reads = startsWith(sql, "SELECT") || startsWith(sql, "PRAGMA");
        this.statement = statement;
        this.owner = owner;
    }

    private static boolean startsWith(String sql, String keyword) {
        return sql.stripLeading().regionMatches(true, 0, keyword, 0, keyword.length());
    }

    static PreparedStatement lend(String sql, PreparedStatement statement, StatementKeepingConnection owner) {
        return (PreparedStatement) Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, new LentStatement(sql, statement, owner));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        switch (name) {
            case "close":
                giveBack();
                return null;
            case "isClosed":
                return closed || statement.isClosed();
            case "equals":
                return proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            case "toString":
                return "lent " + statement;
            default:
                break;
        }
        if (closed) {
            throw new SQLException("statement is closed");
        }
        if (name.equals("getConnection")) {
            return owner.proxy();
        }
        if (StatementKeepingConnection.isWrapperCall(method, args, proxy)) {
            return name.equals("unwrap") ? proxy : Boolean.TRUE;
        }
        if (STICKY_SETTERS.contains(name) || name.equals("getGeneratedKeys")) {
            reusable = false; // sqlite-jdbc keeps the keys' own statement on this one
        }
        Object result = StatementKeepingConnection.call(method, statement, args);
        if (result instanceof ResultSet rows) {
            if (!results.contains(rows)) {
                results.add(rows);
            }
        }
        return result;
    }

    private void giveBack() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            giveBackReset();
        } finally {
            if (!reads) {
                owner.writeReset(); // also after a failure: a finalized or reset statement ended its write
            }
        }
    }

    private void giveBackReset() throws SQLException {
        CoreStatement core = statement.unwrap(CoreStatement.class);
        if (statement.isClosed() || core.pointer.isClosed()) {
            statement.close(); // sqlite-jdbc closed it after an error, or its connection was closed
            return;
        }
        boolean keep = false;
        try {
            for (ResultSet rows : results) {
                if (!rows.isClosed()) {
                    // Its caller may still hold it: sqlite-jdbc has one result set object per
                    // statement, which the next borrower's rows would fill. Closing the statement
                    // closes it for good.
                    reusable = false;
                }
                rows.close();
            }
            core.pointer.safeRunInt(DB::reset);
            statement.clearParameters();
            statement.clearBatch();
            statement.clearWarnings();
            keep = reusable;
        } catch (SQLException | RuntimeException e) {
            StatementKeepingConnection.closeQuietly(statement, e);
            throw e;
        }
        if (keep) {
            owner.giveBack(sql, statement);
        } else {
            statement.close();
        }
    }
}
