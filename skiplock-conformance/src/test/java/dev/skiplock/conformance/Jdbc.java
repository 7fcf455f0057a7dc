package dev.skiplock.conformance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
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

    /** The one number {@code sql} answers, on {@code connection} (in its transaction, if it has one). */
    static long number(Connection connection, String sql) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql);
                ResultSet row = statement.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }

    /** Reads one value per row of {@code row}. */
    interface Row<T> {
        T read(ResultSet row) throws SQLException;
    }

    /** Runs a query; returns one {@code T} per row. */
    static <T> List<T> query(DataSource dataSource, String sql, Row<T> row) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql);
                ResultSet rows = statement.executeQuery()) {
            List<T> found = new ArrayList<>();
            while (rows.next()) {
                found.add(row.read(rows));
            }
            return found;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
