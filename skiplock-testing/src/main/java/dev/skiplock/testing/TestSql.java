package dev.skiplock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The named statements of {@code postgres.sql} / {@code sqlite.sql} beside this class, with the two
 * things the dialects bind differently: times (timestamptz / epoch milliseconds) and ids (uuid / text).
 */
final class TestSql {
    private static final Pattern PARAMETER = Pattern.compile(":([a-z_]+)");
    private static final Map<String, TestSql> BY_DIALECT = new HashMap<>();

    private final String dialect;
    private final Map<String, String> statements;

    private TestSql(String dialect, Map<String, String> statements) {
        this.dialect = dialect;
        this.statements = statements;
    }

    /** The statements of {@code dialect}: a driver name, {@code postgres} or {@code sqlite}. */
    static synchronized TestSql of(String dialect) {
        if (!dialect.equals("postgres") && !dialect.equals("sqlite")) {
            throw new IllegalArgumentException("skiplock-testing knows postgres and sqlite, not " + dialect);
        }
        return BY_DIALECT.computeIfAbsent(dialect, name -> new TestSql(name, load(name + ".sql")));
    }

    /** The statements for the database behind {@code connection}. */
    static TestSql of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        return of(product.equalsIgnoreCase("PostgreSQL") ? "postgres" : product.toLowerCase(java.util.Locale.ROOT));
    }

    boolean isPostgres() {
        return dialect.equals("postgres");
    }

    /** Runs statement {@code name} with {@code parameters} by name; returns its update count. */
    int update(DataSource dataSource, String name, Map<String, Object> parameters) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = prepare(connection, name, parameters)) {
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw failed(name, e);
        }
    }

    /** Runs query {@code name} on a connection of {@code dataSource}; {@code rows} reads each row. */
    <T> List<T> query(DataSource dataSource, String name, Map<String, Object> parameters, Row<T> rows) {
        try (Connection connection = dataSource.getConnection()) {
            return query(connection, name, parameters, rows);
        } catch (SQLException e) {
            throw failed(name, e);
        }
    }

    /** Runs query {@code name} on {@code connection} (left open, in whatever transaction it is in). */
    <T> List<T> query(Connection connection, String name, Map<String, Object> parameters, Row<T> rows) {
        try (PreparedStatement statement = prepare(connection, name, parameters);
                ResultSet result = statement.executeQuery()) {
            List<T> read = new ArrayList<>();
            while (result.next()) {
                read.add(rows.read(result));
            }
            return read;
        } catch (SQLException e) {
            throw failed(name, e);
        }
    }

    /** The database's current time. */
    Instant now(DataSource dataSource) {
        return query(dataSource, "database_now", Map.of(), result -> instant(result, "now")).getFirst();
    }

    /** A time as this dialect binds it. */
    Object time(Instant instant) {
        return isPostgres() ? OffsetDateTime.ofInstant(instant, ZoneOffset.UTC) : instant.toEpochMilli();
    }

    /** A job id as this dialect binds it. */
    Object id(UUID id) {
        return isPostgres() ? id : id.toString();
    }

    Instant instant(ResultSet result, String column) throws SQLException {
        return isPostgres() ? result.getObject(column, OffsetDateTime.class).toInstant()
                : Instant.ofEpochMilli(result.getLong(column));
    }

    UUID id(ResultSet result, String column) throws SQLException {
        return UUID.fromString(result.getString(column));
    }

    private PreparedStatement prepare(Connection connection, String name, Map<String, Object> parameters)
            throws SQLException {
        String sql = statements.get(name);
        if (sql == null) {
            throw new IllegalArgumentException("no statement " + name + " in skiplock-testing's " + dialect + ".sql");
        }
        List<String> order = new ArrayList<>();
        Matcher matcher = PARAMETER.matcher(sql);
        while (matcher.find()) {
            order.add(matcher.group(1));
        }
        PreparedStatement statement = connection.prepareStatement(matcher.replaceAll("?"));
        for (int index = 0; index < order.size(); index++) {
            if (!parameters.containsKey(order.get(index))) {
                statement.close();
                throw new IllegalArgumentException(name + ": no value for :" + order.get(index));
            }
            statement.setObject(index + 1, parameters.get(order.get(index)));
        }
        return statement;
    }

    private IllegalStateException failed(String name, SQLException e) {
        return new IllegalStateException("skiplock-testing statement " + name + " failed on " + dialect + ": "
                + e.getMessage(), e);
    }

    /** Reads one row. */
    @FunctionalInterface
    interface Row<T> {
        T read(ResultSet result) throws SQLException;
    }

    private static Map<String, String> load(String file) {
        try (InputStream in = TestSql.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("missing resource dev/skiplock/testing/" + file);
            }
            Map<String, String> statements = new HashMap<>();
            String name = null;
            StringBuilder body = new StringBuilder();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("-- name: ")) {
                    if (name != null) {
                        statements.put(name, body.toString().strip());
                    }
                    name = line.substring("-- name: ".length()).strip();
                    body.setLength(0);
                } else if (name != null && !line.startsWith("--")) {
                    body.append(line).append('\n');
                }
            }
            if (name != null) {
                statements.put(name, body.toString().strip());
            }
            return Map.copyOf(statements);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
