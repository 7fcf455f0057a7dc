package dev.skiplock.conformance;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * A pool as it is, except that an action of the test runs once, before a connection lent by it
 * first prepares a given statement: a store built on it has finished the statements it ran before
 * that one, and runs it after the action.
 */
final class BeforeStatement {
    private BeforeStatement() {
    }

    /** The test's action; what it throws, preparing the statement throws instead. */
    interface Action {
        void run() throws Exception;
    }

    static DataSource dataSource(DataSource pool, String sql, Action action) {
        AtomicBoolean done = new AtomicBoolean();
        return (DataSource) Proxy.newProxyInstance(BeforeStatement.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = call(pool, method, args);
                    if (!(result instanceof Connection connection)) {
                        return result;
                    }
                    return Proxy.newProxyInstance(BeforeStatement.class.getClassLoader(), new Class<?>[] {Connection.class},
                            (lent, called, given) -> {
                                if (called.getName().equals("prepareStatement") && sql.equals(given[0])
                                        && done.compareAndSet(false, true)) {
                                    action.run();
                                }
                                return call(connection, called, given);
                            });
                });
    }

    private static Object call(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
