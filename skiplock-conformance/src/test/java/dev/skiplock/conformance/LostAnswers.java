package dev.skiplock.conformance;

import static java.util.Map.entry;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Data sources with a fault on the client's path to a real database: {@link #dropping} loses the
 * next answer to one statement on the way back (the statement runs and commits in autocommit, then
 * the caller gets a connection error instead of the rows, as when the connection drops between the
 * server's commit and the client reading the reply); {@link #rejecting} makes the database refuse
 * any statement that carries a marker string, as it refuses a value it cannot store;
 * {@link #completerHeld} keeps the completer's writes from reaching the database until the test
 * lets them go.
 */
final class LostAnswers {
    /** The text that identifies each statement whose answer can be dropped, in both dialects. */
    private static final Map<String, Pattern> STATEMENTS = Map.ofEntries(
            // PostgreSQL's claim is a function since its 0016, SQLite's an UPDATE
            entry("claim_jobs", Pattern.compile("skiplock_claim_jobs\\(|SET status = 'running', attempt = attempt \\+ 1")),
            entry("unclaim_jobs", Pattern.compile("attempt = (j\\.)?attempt - 1, locked_by = NULL")),
            entry("touch_worker", Pattern.compile("UPDATE skiplock_workers SET last_heartbeat_at")),
            entry("complete_jobs", Pattern.compile("max_attempts = (j|skiplock_jobs)\\.max_attempts \\+ c\\.extra_attempts")),
            // SQLite's successes without an error (its hot path, hot_path.sql)
            entry("complete_successes", Pattern.compile("finished_seq = \\(SELECT seq FROM sqlite_sequence")),
            entry("append_logs", Pattern.compile("INSERT INTO skiplock_job_events \\(job_id, attempt, type, stream, message")),
            entry("count_logs", Pattern.compile("COALESCE\\(max\\(line\\) \\+ 1, 0\\)\\) FROM skiplock_job_events")),
            entry("list_steps", Pattern.compile("SELECT name, kind, output, ")),
            entry("record_step", Pattern.compile("INSERT INTO skiplock_job_steps \\(job_id, name, kind, output, wake_at\\)")),
            entry("append_step_event", Pattern.compile("INSERT INTO skiplock_job_events \\(job_id, attempt, type, step, status, message\\)")),
            entry("read_signal", Pattern.compile("SELECT g\\.payload FROM skiplock_job_signals")),
            entry("update_progress", Pattern.compile("UPDATE skiplock_jobs SET progress = ")));

    private LostAnswers() {
    }

    /**
     * Drops the answer of the next {@code statement} while {@code armed} is true (then disarms it):
     * in autocommit the statement's own answer; in a transaction (SQLite's claim, which holds the
     * write lock while it counts its slots; a checkpoint with its step event), the answer of the
     * commit that ends it. A transaction
     * that rolls back loses nothing: the worker's warm-up claims a job of its own that way.
     */
    static DataSource dropping(DataSource target, String statement, AtomicBoolean armed) {
        Pattern text = STATEMENTS.get(statement);
        return proxy(DataSource.class, target, (method, args, result) -> method.getName().equals("getConnection")
                ? droppingConnection((Connection) result, text, armed)
                : result);
    }

    private static Connection droppingConnection(Connection connection, Pattern text, AtomicBoolean armed) {
        AtomicBoolean ranInTransaction = new AtomicBoolean();
        return proxy(Connection.class, connection, (call, args, result) -> {
            switch (call.getName()) {
                case "prepareStatement" -> {
                    if (text.matcher((String) args[0]).find()) {
                        return proxy(PreparedStatement.class, (PreparedStatement) result, (run, runArgs, answer) -> {
                            if ((run.getName().equals("executeQuery") || run.getName().equals("executeUpdate"))
                                    && !connection.getAutoCommit()) {
                                ranInTransaction.set(true);
                                return answer;
                            }
                            return dropAnswer(run, answer, armed, connection);
                        });
                    }
                }
                case "rollback" -> ranInTransaction.set(false);
                // how Skiplock's own transactions roll back (TransactionEnds): a ROLLBACK statement
                case "createStatement" -> {
                    return proxy(java.sql.Statement.class, (java.sql.Statement) result, (run, runArgs, answer) -> {
                        if (run.getName().equals("execute") && "ROLLBACK".equals(runArgs[0])) {
                            ranInTransaction.set(false);
                        }
                        return answer;
                    });
                }
                case "commit", "setAutoCommit" -> {
                    boolean commits = call.getName().equals("commit") || Boolean.TRUE.equals(args[0]);
                    if (commits && ranInTransaction.getAndSet(false) && armed.compareAndSet(true, false)) {
                        throw new SQLTransientConnectionException("test: the connection dropped before the commit's"
                                + " answer arrived", "08006");
                    }
                }
                default -> {
                }
            }
            return result;
        });
    }

    /**
     * Fails the next {@code failures} runs of {@code statement} with a connection error before they
     * reach the database (as on a connection the network has just cut); later runs pass.
     */
    static DataSource failing(DataSource target, String statement, java.util.concurrent.atomic.AtomicInteger failures) {
        Pattern text = STATEMENTS.get(statement);
        return proxy(DataSource.class, target, (method, args, result) -> method.getName().equals("getConnection")
                ? proxy(Connection.class, (Connection) result, (inner, innerArgs, innerResult) ->
                        inner.getName().equals("prepareStatement") && text.matcher((String) innerArgs[0]).find()
                                ? failingStatement((PreparedStatement) innerResult, failures) : innerResult)
                : result);
    }

    /**
     * Runs {@code afterRun} with the number of each run of {@code statement} (from 1) once the
     * database has answered it and before the caller gets the answer: a test holds a read's answer
     * there, as a slow network would, while other calls go on.
     */
    static DataSource paused(DataSource target, String statement, java.util.function.IntConsumer afterRun) {
        Pattern text = STATEMENTS.get(statement);
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        return proxy(DataSource.class, target, (method, args, result) -> method.getName().equals("getConnection")
                ? proxy(Connection.class, (Connection) result, (inner, innerArgs, innerResult) ->
                        inner.getName().equals("prepareStatement") && text.matcher((String) innerArgs[0]).find()
                                ? proxy(PreparedStatement.class, (PreparedStatement) innerResult, (run, runArgs, answer) -> {
                                    if (run.getName().equals("executeQuery")) {
                                        afterRun.accept(runs.incrementAndGet());
                                    }
                                    return answer;
                                })
                                : innerResult)
                : result);
    }

    /**
     * Holds every connection the worker's completer asks for (on its thread, {@code
     * skiplock-completer}) until {@code release} opens: the outcomes' writes stall before they begin,
     * as on a slow or locked database. Holding the connection, not a statement, keeps the stalled
     * write from holding a transaction open meanwhile: SQLite's completion is a transaction, and its
     * write lock would stall the claimer too.
     */
    static DataSource completerHeld(DataSource target, java.util.concurrent.CountDownLatch release) {
        InvocationHandler handler = (self, method, args) -> {
            if (method.getName().equals("getConnection") && Thread.currentThread().getName().equals("skiplock-completer")) {
                awaitQuietly(release);
            }
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (DataSource) Proxy.newProxyInstance(LostAnswers.class.getClassLoader(), new Class<?>[] {DataSource.class},
                handler);
    }

    private static void awaitQuietly(java.util.concurrent.CountDownLatch release) {
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static PreparedStatement failingStatement(PreparedStatement target,
            java.util.concurrent.atomic.AtomicInteger failures) {
        return checkedStatement(target, (method, args) -> {
            if (method.getName().startsWith("execute") && failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new SQLTransientConnectionException("test: the connection was cut", "08006");
            }
        });
    }

    /** What a statement proxy checks before each call reaches the real statement. */
    private interface BeforeCall {
        void check(Method method, Object[] args) throws SQLException;
    }

    private static PreparedStatement checkedStatement(PreparedStatement target, BeforeCall before) {
        InvocationHandler handler = (self, method, args) -> {
            before.check(method, args);
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (PreparedStatement) Proxy.newProxyInstance(LostAnswers.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, handler);
    }

    /**
     * Fails every statement one of whose string parameters, or of the strings in one of its array
     * parameters, contains {@code marker} with a data error (SQLState 22P05, SQLite's SQLITE_TOOBIG
     * code), before it reaches the database.
     */
    static DataSource rejecting(DataSource target, String marker) {
        return proxy(DataSource.class, target, (method, args, result) -> method.getName().equals("getConnection")
                ? proxy(Connection.class, (Connection) result, (inner, innerArgs, innerResult) ->
                        inner.getName().equals("prepareStatement")
                                ? rejectingStatement((PreparedStatement) innerResult, marker) : innerResult)
                : result);
    }

    private static PreparedStatement rejectingStatement(PreparedStatement target, String marker) {
        AtomicBoolean carriesMarker = new AtomicBoolean();
        return checkedStatement(target, (method, args) -> {
            if (method.getName().equals("setString") && args[1] instanceof String text && text.contains(marker)) {
                carriesMarker.set(true);
            }
            // PostgreSQL's complete_jobs takes its outcomes' texts as arrays
            if (method.getName().equals("setArray") && args[1] instanceof java.sql.Array array
                    && java.util.Arrays.deepToString((Object[]) array.getArray()).contains(marker)) {
                carriesMarker.set(true);
            }
            if (method.getName().startsWith("execute") && carriesMarker.get()) {
                throw new SQLException("test: the database cannot store this value", "22P05", 18);
            }
        });
    }

    private static Object dropAnswer(Method call, Object result, AtomicBoolean armed, Connection connection)
            throws SQLException {
        if (call.getName().equals("executeQuery") && connection.getAutoCommit() && armed.compareAndSet(true, false)) {
            ((ResultSet) result).close();
            throw new SQLTransientConnectionException("test: the connection dropped before the answer arrived", "08006");
        }
        return result;
    }

    /** What a proxy does with the target's answer to one call. */
    interface AfterCall {
        Object apply(Method method, Object[] args, Object result) throws Throwable;
    }

    /** {@code target} behind a proxy of {@code type} whose every call's answer {@code after} may change. */
    @SuppressWarnings("unchecked")
    static <T> T proxy(Class<T> type, T target, AfterCall after) {
        InvocationHandler handler = (self, method, args) -> {
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            return after.apply(method, args, result);
        };
        return (T) Proxy.newProxyInstance(LostAnswers.class.getClassLoader(), new Class<?>[] {type}, handler);
    }
}
