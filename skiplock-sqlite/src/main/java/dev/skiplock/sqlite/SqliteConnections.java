package dev.skiplock.sqlite;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.sqlite.BusyHandler;
import org.sqlite.JDBC;

/**
 * Opens the connections of the pool Skiplock creates: as {@code DriverManager} would for the URL
 * (its parameters set the pragmas), each with a {@link PromptBusyHandler} in place of SQLite's
 * sleeping busy timeout, keeping the statements prepared on it ({@link StatementKeepingConnection}).
 */
final class SqliteConnections implements DataSource {
    private final String jdbcUrl;
    private final long busyTimeoutMillis;
    private int loginTimeoutSeconds;
    private PrintWriter logWriter;

    SqliteConnections(String jdbcUrl, long busyTimeoutMillis) {
        this.jdbcUrl = jdbcUrl;
        this.busyTimeoutMillis = busyTimeoutMillis;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = JDBC.createConnection(jdbcUrl, new Properties());
        try {
            BusyHandler.setHandler(connection, new PromptBusyHandler(busyTimeoutMillis));
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return StatementKeepingConnection.of(connection);
    }

    /** A SQLite file has no users: the credentials are not used. */
    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        logWriter = out;
    }

    @Override
    public void setLoginTimeout(int seconds) {
        loginTimeoutSeconds = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeoutSeconds;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no java.util.logging logger");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
