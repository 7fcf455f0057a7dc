package dev.skiplock.conformance;

import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Future;
import javax.sql.DataSource;

/** Drives two PostgreSQL transactions in an order a test chooses. */
final class Transactions {
    private Transactions() {
    }

    /** Runs one statement in the connection's open transaction; returns the row count. */
    static int update(Connection connection, String sql, Object... params) {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                statement.setObject(i + 1, params[i]);
            }
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /**
     * Waits until the statement {@code running} runs either finished or waits for a row lock held by
     * another transaction (a backend whose query contains {@code statementText} waits on a lock).
     */
    static void awaitBlocked(DataSource dataSource, String statementText, Future<?> running) {
        await().atMost(ContractBase.WAIT).pollInterval(Duration.ofMillis(10)).until(() -> running.isDone()
                || !Jdbc.query(dataSource, "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                        + " AND pid <> pg_backend_pid() AND strpos(query, '" + statementText + "') > 0",
                        row -> row.getInt(1)).isEmpty());
    }
}
