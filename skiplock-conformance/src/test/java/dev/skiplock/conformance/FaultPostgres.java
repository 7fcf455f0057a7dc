package dev.skiplock.conformance;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server the fault suite may restart in the middle of a run. With
 * {@code SKIPLOCK_TEST_PG_URL} and {@code SKIPLOCK_FAULTS_PG_RESTART} (a shell command, e.g.
 * {@code pg_ctlcluster --skip-systemctl-redirect 15 main restart}) it is that server; otherwise an
 * embedded PostgreSQL of its own on a fixed port and data directory, stopped and started again.
 */
abstract class FaultPostgres implements AutoCloseable {
    static final String ENV_RESTART = "SKIPLOCK_FAULTS_PG_RESTART";

    abstract String serverUrl();

    /** Stops the server and starts it again; returns when it accepts connections. */
    abstract void restart() throws Exception;

    @Override
    public abstract void close() throws Exception;

    static FaultPostgres open() throws IOException {
        String url = System.getenv(PostgresTestDatabase.ENV_URL);
        String restart = System.getenv(ENV_RESTART);
        if (url != null && !url.isBlank() && restart != null && !restart.isBlank()) {
            return new External(url, restart);
        }
        return new Embedded();
    }

    /** The operator's server, restarted by the operator's command. */
    private static final class External extends FaultPostgres {
        private final String url;
        private final String restartCommand;

        External(String url, String restartCommand) {
            this.url = url;
            this.restartCommand = restartCommand;
        }

        @Override
        String serverUrl() {
            return url;
        }

        @Override
        void restart() throws Exception {
            Process process = new ProcessBuilder("sh", "-c", restartCommand).inheritIO().start();
            if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
                throw new IllegalStateException(ENV_RESTART + " failed: " + restartCommand);
            }
        }

        @Override
        public void close() {
        }
    }

    /** An embedded server whose data directory and port survive a stop, so a start is a restart. */
    private static final class Embedded extends FaultPostgres {
        private final Path dataDirectory;
        private final int port;
        private EmbeddedPostgres postgres;

        Embedded() throws IOException {
            dataDirectory = Files.createTempDirectory("skiplock-faults-pg-");
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            postgres = start();
        }

        private EmbeddedPostgres start() throws IOException {
            return EmbeddedPostgres.builder().setDataDirectory(dataDirectory).setCleanDataDirectory(false)
                    .setPort(port).start();
        }

        @Override
        String serverUrl() {
            return postgres.getJdbcUrl("postgres", "postgres");
        }

        @Override
        void restart() throws IOException {
            postgres.close();
            postgres = start();
        }

        @Override
        public void close() throws IOException {
            try {
                postgres.close();
            } finally {
                try (var files = Files.walk(dataDirectory)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
                } catch (UncheckedIOException ignored) {
                    // best effort: a temp directory
                }
            }
        }
    }
}
