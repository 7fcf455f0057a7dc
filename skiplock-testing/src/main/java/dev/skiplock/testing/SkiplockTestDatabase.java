package dev.skiplock.testing;

import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockClient;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * One test's own migrated Skiplock database: a fresh PostgreSQL schema, or a new SQLite file.
 * {@link SkiplockExtension} creates and closes it; {@link #create} does so without JUnit.
 * Thread-safe.
 */
public final class SkiplockTestDatabase implements AutoCloseable {
    /** The environment variable naming a PostgreSQL server (a JDBC URL) to use instead of an embedded one. */
    public static final String PG_URL_VARIABLE = "SKIPLOCK_TEST_PG_URL";
    private static String postgresServer;

    private final SkiplockTest.Database database;
    private final String url;
    private final Runnable dropper;
    private SkiplockClient client;
    private boolean closed;

    private SkiplockTestDatabase(SkiplockTest.Database database, String url, Runnable dropper) {
        this.database = database;
        this.url = url;
        this.dropper = dropper;
    }

    /** A new, migrated database of this kind; close it to drop it. */
    public static SkiplockTestDatabase create(SkiplockTest.Database database) {
        SkiplockTestDatabase created = switch (database) {
            case POSTGRES -> postgresSchema();
            case SQLITE -> sqliteFile();
        };
        try {
            Skiplock.builder().url(created.url).migrate();
            return created;
        } catch (RuntimeException e) {
            created.close();
            throw e;
        }
    }

    /**
     * The JDBC URL of the PostgreSQL server tests use: {@value #PG_URL_VARIABLE} if set, else an
     * embedded PostgreSQL started on first use and stopped when the JVM exits.
     */
    public static synchronized String postgresServer() {
        if (postgresServer == null) {
            String fromEnvironment = System.getenv(PG_URL_VARIABLE);
            postgresServer = fromEnvironment != null && !fromEnvironment.isBlank() ? fromEnvironment : startEmbedded();
        }
        return postgresServer;
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
            throw new UncheckedIOException("cannot start an embedded PostgreSQL (set " + PG_URL_VARIABLE
                    + " to use a server)", e);
        }
    }

    private static SkiplockTestDatabase postgresSchema() {
        String server = postgresServer();
        String schema = "skiplock_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        execute(server, "CREATE SCHEMA " + schema);
        String url = server + (server.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        return new SkiplockTestDatabase(SkiplockTest.Database.POSTGRES, url,
                () -> execute(server, "DROP SCHEMA IF EXISTS " + schema + " CASCADE"));
    }

    private static SkiplockTestDatabase sqliteFile() {
        try {
            Path folder = Files.createTempDirectory("skiplock-test-");
            return new SkiplockTestDatabase(SkiplockTest.Database.SQLITE, "jdbc:sqlite:" + folder.resolve("jobs.db"),
                    () -> deleteFolder(folder));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Which database this is. */
    public SkiplockTest.Database database() {
        return database;
    }

    /** The JDBC URL of this database (PostgreSQL: its schema is the URL's {@code currentSchema}). */
    public String url() {
        return url;
    }

    /** A builder on this database with {@link SkiplockTesting#config()}: add queues and handlers, then build. */
    public Skiplock.Builder builder() {
        return Skiplock.builder().url(url).config(SkiplockTesting.config().build());
    }

    /** An enqueue-only client on this database, opened on first use and closed with it. */
    public synchronized SkiplockClient client() {
        if (closed) {
            throw new IllegalStateException("this test database is closed");
        }
        if (client == null) {
            client = Skiplock.builder().url(url).buildClient();
        }
        return client;
    }

    /** The client's pool (Skiplock's own, set up for this database): for the test's own reads and writes. */
    public DataSource dataSource() {
        return client().dataSource();
    }

    /** Closes the client and drops the schema (PostgreSQL) or deletes the file (SQLite). Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (client != null) {
            client.close();
        }
        dropper.run();
    }

    @Override
    public String toString() {
        return database.name().toLowerCase(java.util.Locale.ROOT) + " test database " + url;
    }

    private static void execute(String jdbcUrl, String sql) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private static void deleteFolder(Path folder) {
        try (var files = Files.list(folder)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(folder);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
