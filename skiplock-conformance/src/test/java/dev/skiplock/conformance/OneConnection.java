package dev.skiplock.conformance;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * A data source that lends one connection for every call and leaves it open when given back: a
 * store built on it runs its statements in the test's transaction, whose statistics the test reads.
 */
final class OneConnection {
    private OneConnection() {
    }

    static DataSource lending(Connection connection) {
        Connection lent = (Connection) Proxy.newProxyInstance(OneConnection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return (DataSource) Proxy.newProxyInstance(OneConnection.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getConnection" -> lent;
                    case "isWrapperFor" -> false;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
