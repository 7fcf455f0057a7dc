package dev.skiplock.cli.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * Fresh tables for one benchmark run, removed afterwards: a new schema in the given PostgreSQL
 * database, or a new SQLite file in a temp folder with the given URL's parameters (the user's own
 * file is never touched).
 */
final class BenchDatabase implements AutoCloseable {
    private final String baseUrl;
    private final String url;
    private final String schema;
    private final Path folder;

    BenchDatabase(String jdbcUrl) {
        this.baseUrl = jdbcUrl;
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            schema = "skiplock_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
            execute("CREATE SCHEMA " + schema);
            url = jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
            folder = null;
        } else {
            schema = null;
            try {
                folder = Files.createTempDirectory("skiplock-bench-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            // The user's file is never touched, but its URL parameters apply (e.g. ?synchronous=NORMAL).
            int query = jdbcUrl.indexOf('?');
            url = "jdbc:sqlite:" + folder.resolve("bench.db") + (query < 0 ? "" : jdbcUrl.substring(query));
        }
    }

    String url() {
        return url;
    }

    String kind() {
        return schema != null ? "postgres" : "sqlite";
    }

    @Override
    public void close() {
        if (schema != null) {
            execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            return;
        }
        try (var files = Files.list(folder)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(folder);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void execute(String sql) {
        try (Connection connection = DriverManager.getConnection(baseUrl);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new dev.skiplock.SkiplockException("cannot prepare benchmark tables: " + e.getMessage(), e);
        }
    }
}
