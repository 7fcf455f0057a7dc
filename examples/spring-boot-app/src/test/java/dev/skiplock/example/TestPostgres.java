package dev.skiplock.example;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;

/**
 * A fresh schema in a real PostgreSQL: the server named by {@code SKIPLOCK_TEST_PG_URL} (a JDBC URL)
 * if set, else one embedded PostgreSQL started once per test JVM (as the conformance suite's
 * {@code PostgresTestDatabase}, of which this is the part an application test needs).
 */
final class TestPostgres implements AutoCloseable {
    private static String server;

    private final String schema = "example_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    private final String url;

    TestPostgres() {
        execute("CREATE SCHEMA " + schema);
        url = server() + (server().contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    /** The JDBC URL of this schema, for {@code spring.datasource.url}. */
    String url() {
        return url;
    }

    @Override
    public void close() {
        execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    private static synchronized String server() {
        if (server == null) {
            String fromEnv = System.getenv("SKIPLOCK_TEST_PG_URL");
            server = fromEnv != null && !fromEnv.isBlank() ? fromEnv : startEmbedded();
        }
        return server;
    }

    private static String startEmbedded() {
        try {
            EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    postgres.close();
                } catch (IOException ignored) {
                    // the JVM is exiting; the temp cluster is removed with it
                }
            }));
            return postgres.getJdbcUrl("postgres", "postgres");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL (set SKIPLOCK_TEST_PG_URL to use a server)", e);
        }
    }

    private static void execute(String sql) {
        try (Connection connection = DriverManager.getConnection(server())) {
            connection.createStatement().execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
