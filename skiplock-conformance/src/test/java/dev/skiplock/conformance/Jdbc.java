package dev.skiplock.conformance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Raw SQL for the few database pokes tests need (bypassing Skiplock on purpose). */
final class Jdbc {
    private Jdbc() {
    }

    /** Runs one statement with {@code params} bound in order; returns the row count. */
    static int update(DataSource dataSource, String sql, Object... params) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                statement.setObject(i + 1, params[i]);
            }
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
