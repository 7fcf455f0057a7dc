package dev.skiplock.postgres;

import dev.skiplock.spi.Notifier;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One LISTEN connection per process on channel {@code skiplock:<schema>}. Payloads are
 * {@code q:<queue>} (jobs committed on a queue), {@code c:<job id>} (cancel requested) and
 * {@code e:<job id>} (events appended: log lines, a terminal status). A broken
 * connection is replaced with backoff, and after every (re)connect the engine re-syncs, because
 * notifications sent meanwhile are lost.
 */
final class PostgresNotifier implements Notifier {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresNotifier.class);
    /** How long one wait for notifications blocks; bounds how fast close() is noticed. */
    private static final int WAIT_MILLIS = 250;

    private final DataSource dataSource;
    private volatile boolean running = true;
    private Thread thread;

    PostgresNotifier(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public void start(Listener listener) {
        thread = Thread.ofPlatform().name("skiplock-listen").daemon().start(() -> loop(listener));
    }

    @Override
    public void close() {
        running = false;
        if (thread != null) {
            try {
                thread.join(WAIT_MILLIS * 4L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void loop(Listener listener) {
        long backoffMillis = 100;
        while (running) {
            try (Connection connection = dataSource.getConnection()) {
                listen(connection);
                backoffMillis = 100;
                listener.resync();
                PGConnection postgres = connection.unwrap(PGConnection.class);
                while (running) {
                    for (PGNotification notification : postgres.getNotifications(WAIT_MILLIS)) {
                        dispatch(notification.getParameter(), listener);
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    return;
                }
                LOG.warn("LISTEN connection failed; reconnecting in {} ms (polling covers the gap): {}",
                        backoffMillis, e.getMessage());
                sleep(backoffMillis);
                backoffMillis = Math.min(backoffMillis * 2, 10_000);
            }
        }
    }

    private static void listen(Connection connection) throws SQLException {
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
            String schema;
            try (ResultSet row = statement.executeQuery("SELECT current_schema()")) {
                row.next();
                schema = row.getString(1);
            }
            // LISTEN takes an identifier, not a parameter: quote it (the schema name comes from the server).
            statement.execute("LISTEN \"" + ("skiplock:" + schema).replace("\"", "\"\"") + "\"");
        }
    }

    private static void dispatch(String payload, Listener listener) {
        if (payload == null || payload.length() < 3 || payload.charAt(1) != ':') {
            return;
        }
        String value = payload.substring(2);
        switch (payload.charAt(0)) {
            case 'q' -> listener.queueReady(value);
            case 'c' -> jobId(payload, value, listener::cancelRequested);
            case 'e' -> jobId(payload, value, listener::eventsAppended);
            default -> LOG.debug("ignoring unknown notification {}", payload);
        }
    }

    private static void jobId(String payload, String value, java.util.function.Consumer<UUID> target) {
        try {
            target.accept(UUID.fromString(value));
        } catch (IllegalArgumentException e) {
            LOG.debug("ignoring malformed notification {}", payload);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
