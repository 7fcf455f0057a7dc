package dev.skiplock.conformance;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A pool as it is, except that an action of the test runs before it lends its {@code loan}-th
 * connection: a store built on it has finished the statements it ran on the connections it took
 * before, and runs the next ones after the action, in that order.
 */
final class BetweenLoans {
    private BetweenLoans() {
    }

    /** The test's action; what it throws, the loan throws instead of lending the connection. */
    interface Action {
        void run() throws Exception;
    }

    static DataSource before(DataSource pool, int loan, Action action) {
        AtomicInteger loans = new AtomicInteger();
        return (DataSource) Proxy.newProxyInstance(BetweenLoans.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && loans.incrementAndGet() == loan) {
                        action.run();
                    }
                    try {
                        return method.invoke(pool, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
