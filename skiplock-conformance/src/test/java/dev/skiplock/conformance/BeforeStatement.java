package dev.skiplock.conformance;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * A pool as it is, except that an action of the test runs before a connection lent by it prepares
 * a given statement: a store built on it has finished the statements it ran before that one, and
 * runs it after the action (or fails, if the action throws).
 */
final class BeforeStatement {
    private BeforeStatement() {
    }

    /** The text of {@code name} in the driver's {@code sql/<file>.sql} of {@code instance}, as a connection prepares it. */
    static String sql(dev.skiplock.Skiplock instance, String file, String name) {
        return dev.skiplock.internal.sql.SqlFile.load(FastPathContract.driver(instance).resourceRoot() + "/sql/" + file
                + ".sql").get(name).jdbcSql();
    }

    /** The test's action; what it throws, preparing the statement throws instead. */
    interface Action {
        void run() throws Exception;
    }

    /** Runs {@code action} once, before {@code sql} is first prepared. */
    static DataSource dataSource(DataSource pool, String sql, Action action) {
        AtomicBoolean done = new AtomicBoolean();
        return onPrepare(pool, sql, () -> {
            if (done.compareAndSet(false, true)) {
                action.run();
            }
        });
    }

    /**
     * Runs {@code action} once, before {@code sql} is next prepared after the test set {@code armed}
     * (which it clears): a worker's warm-up, which runs the statement before the test arms it, is left
     * alone.
     */
    static DataSource onceArmed(DataSource pool, String sql, AtomicBoolean armed, Action action) {
        return onPrepare(pool, sql, () -> {
            if (armed.compareAndSet(true, false)) {
                action.run();
            }
        });
    }

    /** As {@link #onceArmed}, before the next statement prepared whose text contains {@code fragment}. */
    static DataSource onceArmedContaining(DataSource pool, String fragment, AtomicBoolean armed, Action action) {
        return onPrepare(pool, sql -> sql.contains(fragment), () -> {
            if (armed.compareAndSet(true, false)) {
                action.run();
            }
        });
    }

    /** Runs {@code action} before every preparation of {@code sql}. */
    static DataSource eachTime(DataSource pool, String sql, Action action) {
        return onPrepare(pool, sql, action);
    }

    /** The test's action on the connection about to prepare the statement (in its transaction, if one is open). */
    interface OnConnection {
        void run(Connection connection) throws Exception;
    }

    /** Runs {@code action} on the connection before every preparation of {@code sql}. */
    static DataSource eachTimeOnItsConnection(DataSource pool, String sql, OnConnection action) {
        return lending(pool, (connection, called, given) -> {
            if (called.getName().equals("prepareStatement") && sql.equals(given[0])) {
                action.run(connection);
            }
            return call(connection, called, given);
        });
    }

    /**
     * Runs {@code action} once, before a plain statement of a connection lent by the pool next
     * executes SQL starting with {@code prefix} after the test set {@code armed} (which it clears).
     */
    static DataSource onceArmedExecuting(DataSource pool, String prefix, AtomicBoolean armed, Action action) {
        ClassLoader loader = BeforeStatement.class.getClassLoader();
        return lending(pool, (connection, called, given) -> {
            Object result = call(connection, called, given);
            if (!called.getName().equals("createStatement")) {
                return result;
            }
            return Proxy.newProxyInstance(loader, new Class<?>[] {Statement.class}, (statement, executed, sql) -> {
                if (executed.getName().startsWith("execute") && sql != null && sql.length > 0
                        && sql[0] instanceof String text && text.startsWith(prefix) && armed.compareAndSet(true, false)) {
                    action.run();
                }
                return call(result, executed, sql);
            });
        });
    }

    /**
     * Runs {@code action} once, before a connection lent by the pool next begins a transaction
     * ({@code setAutoCommit(false)}; on SQLite that takes the write lock) on the thread the test put
     * in {@code armed} (which it clears): the action runs before that thread's transaction, with no
     * lock of it held, while other threads' transactions pass by.
     */
    static DataSource onceArmedBeginning(DataSource pool, java.util.concurrent.atomic.AtomicReference<Thread> armed,
            Action action) {
        return lending(pool, (connection, called, given) -> {
            if (called.getName().equals("setAutoCommit") && Boolean.FALSE.equals(given[0])
                    && armed.compareAndSet(Thread.currentThread(), null)) {
                action.run();
            }
            return call(connection, called, given);
        });
    }

    /** Preparing {@code sql} fails every time, as a role without rights on its table makes it. */
    static DataSource failing(DataSource pool, String sql) {
        return onPrepare(pool, sql, () -> {
            throw new SQLException("permission denied (the test's " + BeforeStatement.class.getSimpleName() + ")");
        });
    }

    /** Runs {@code action} before every time {@code sql} is prepared. */
    static DataSource onPrepare(DataSource pool, String sql, Action action) {
        return onPrepare(pool, sql::equals, action);
    }

    private static DataSource onPrepare(DataSource pool, java.util.function.Predicate<String> sql, Action action) {
        return lending(pool, (connection, called, given) -> {
            if (called.getName().equals("prepareStatement") && sql.test((String) given[0])) {
                action.run();
            }
            return call(connection, called, given);
        });
    }

    /** What a lent connection does when called: the test's handler, given the pool's connection. */
    private interface LentConnection {
        Object called(Connection connection, Method called, Object[] given) throws Throwable;
    }

    /** The pool, whose connections go through {@code handler}. */
    private static DataSource lending(DataSource pool, LentConnection handler) {
        ClassLoader loader = BeforeStatement.class.getClassLoader();
        return (DataSource) Proxy.newProxyInstance(loader, new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
            Object result = call(pool, method, args);
            if (!(result instanceof Connection connection)) {
                return result;
            }
            return Proxy.newProxyInstance(loader, new Class<?>[] {Connection.class},
                    (lent, called, given) -> handler.called(connection, called, given));
        });
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
