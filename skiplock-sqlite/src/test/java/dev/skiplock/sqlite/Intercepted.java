package dev.skiplock.sqlite;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/** JDBC objects behind a handler that sees each call: how the driver's tests watch or fail statements. */
final class Intercepted {
    /** Handles one call on the proxy; runs it on the target with {@link #invoke}, or not. */
    interface Handler {
        Object handle(Method method, Object[] args) throws Throwable;
    }

    private Intercepted() {
    }

    @SuppressWarnings("unchecked")
    static <T> T proxy(Class<T> type, Handler handler) {
        InvocationHandler invocation = (self, method, args) -> handler.handle(method, args);
        return (T) Proxy.newProxyInstance(Intercepted.class.getClassLoader(), new Class<?>[] {type}, invocation);
    }

    /** Runs the call on {@code target}, throwing what it throws (not its reflective wrapper). */
    static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** {@code target}, each connection it gives made into {@code wrap}'s. */
    static DataSource connections(DataSource target, UnaryOperator<Connection> wrap) {
        return proxy(DataSource.class, (method, args) -> {
            Object result = invoke(method, target, args);
            return method.getName().equals("getConnection") ? wrap.apply((Connection) result) : result;
        });
    }
}
