package dev.skiplock.postgres;

import dev.skiplock.spi.Notifier;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One LISTEN connection per process on channel {@code skiplock:<schema>}. Payloads are
 * {@code q:<queue>} (jobs committed on a queue), {@code c:<job id>} (cancel requested) and
 * {@code e:<job id>[,<job id>…]} (events appended: log lines, a terminal status; a completion
 * announces its jobs only while some process follows job events, which {@link #follow} tells
 * completions through {@link FollowLock}). A broken
 * connection is replaced with backoff, and after every (re)connect the engine re-syncs, because
 * notifications sent meanwhile are lost.
 */
final class PostgresNotifier implements Notifier {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresNotifier.class);
    /** How long one wait for notifications blocks; bounds how fast close() is noticed. */
    private static final int WAIT_MILLIS = 250;
    /** How often the LISTEN connection is probed ({@link #probe}), and how long a probe may take. */
    private static final long PROBE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    private static final int PROBE_TIMEOUT_SECONDS = 5;

    private final DataSource dataSource;
    private volatile boolean running = true;
    private volatile Thread thread;
    /** Sends the notifications of enqueues that committed in their own transaction; made at first use. */
    private volatile Announcer announcer;
    private volatile boolean closed;
    /** Held while this process follows job events, so that completions announce their jobs. */
    private final FollowLock followLock;

    PostgresNotifier(DataSource dataSource) {
        this.dataSource = dataSource;
        this.followLock = new FollowLock(this::followConnection);
    }

    @Override
    public void start(Listener listener) {
        thread = Thread.ofPlatform().name("skiplock-listen").daemon().start(() -> loop(listener));
    }

    /**
     * Completions announce their jobs from now on ({@link FollowLock}); only a started notifier
     * listens, so an instance that was never started has no use for it (its followers read again
     * each second).
     */
    @Override
    public void follow() throws InterruptedException {
        if (thread != null && running) {
            followLock.follow();
        }
    }

    /** After an enqueue in its own transaction committed, whose statement did not notify (see {@link Announcer}). */
    @Override
    public void publishQueueReady(String queue) {
        if (closed) {
            // A handler of the closing worker enqueued: no thread to hand it to, so send it now.
            Announcer.sendNow(dataSource, "q:" + queue);
        } else {
            announcer().announce("q:" + queue);
        }
    }

    private Announcer announcer() {
        Announcer current = announcer;
        if (current == null) {
            synchronized (this) {
                if (announcer == null) {
                    announcer = new Announcer(dataSource);
                }
                current = announcer;
            }
        }
        return current;
    }

    @Override
    public void close() {
        Announcer current;
        synchronized (this) {
            closed = true;
            current = announcer;
        }
        if (current != null) {
            current.close();
        }
        followLock.close();
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
            NotificationScanner scanner = NotificationSocketFactory.scanner(payload -> dispatch(payload, listener));
            String key = NotificationSocketFactory.register(scanner);
            try (Connection connection = open(key)) {
                listen(connection);
                listener.resync();
                backoffMillis = 100; // only now: a failure that recurs before this backs off further
                PGConnection postgres = connection.unwrap(PGConnection.class);
                long probeAt = System.nanoTime() + PROBE_NANOS;
                while (running) {
                    followLock.releaseIfIdle();
                    if (System.nanoTime() - probeAt >= 0) {
                        probe(connection);
                        probeAt = System.nanoTime() + PROBE_NANOS;
                    }
                    // With a scanning socket the notifications were dispatched as they arrived;
                    // this call only keeps pgjdbc reading the connection (and noticing its loss).
                    for (PGNotification notification : postgres.getNotifications(WAIT_MILLIS)) {
                        if (!scanner.active()) {
                            dispatch(notification.getParameter(), listener);
                        }
                    }
                }
            } catch (SQLException | RuntimeException | Error e) {
                // An Error too (out of memory, say): a listener that died would leave the worker to
                // find every job at its poll interval, for good.
                if (!running) {
                    return;
                }
                LOG.warn("LISTEN connection failed; reconnecting in {} ms (polling covers the gap): {}",
                        backoffMillis, reason(e));
                sleep(backoffMillis);
                backoffMillis = Math.min(backoffMillis * 2, 10_000);
            } finally {
                NotificationSocketFactory.unregister(key);
            }
        }
    }

    /**
     * The LISTEN connection: its own connection with a scanning socket when Skiplock built the
     * pool from a URL (so it also takes no pool slot), else one borrowed from the caller's pool.
     * On a loopback host without an explicit sslmode it does not ask for TLS, which would hide
     * the stream from the scanner; loopback traffic never leaves the machine.
     */
    private Connection open(String scannerKey) throws SQLException {
        if (!(dataSource instanceof HikariDataSource pool) || pool.getJdbcUrl() == null) {
            return dataSource.getConnection();
        }
        Properties properties = credentials(pool);
        properties.setProperty("socketFactory", NotificationSocketFactory.class.getName());
        properties.setProperty("socketFactoryArg", scannerKey);
        Properties parsed = org.postgresql.Driver.parseURL(pool.getJdbcUrl(), null);
        if (parsed != null && parsed.getProperty("sslmode") == null && !properties.containsKey("sslmode")
                && isLoopback(parsed.getProperty("PGHOST", "localhost"))) {
            properties.setProperty("sslmode", "disable");
            properties.setProperty("gssEncMode", "disable");
        }
        return besidePool(pool, properties);
    }

    /**
     * A connection of its own to the pool's database, set up as the pool sets up its connections
     * (its schema, its init SQL): the channel and the follow key are named after the connection's
     * schema, and an enqueue on a pooled connection notifies in the pool's. A pool whose connections
     * were put in another schema than the URL's (Spring Boot's {@code spring.datasource.hikari.schema})
     * had this connection listen where nobody notified.
     */
    private static Connection besidePool(HikariDataSource pool, Properties properties) throws SQLException {
        Connection connection = DriverManager.getConnection(pool.getJdbcUrl(), properties);
        try {
            if (pool.getSchema() != null) {
                connection.setSchema(pool.getSchema());
            }
            if (pool.getConnectionInitSql() != null) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute(pool.getConnectionInitSql());
                }
            }
            return connection;
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /** The follow lock's connection: its own when Skiplock built the pool, else one borrowed from the caller's pool. */
    private Connection followConnection() {
        try {
            if (!(dataSource instanceof HikariDataSource pool) || pool.getJdbcUrl() == null) {
                return dataSource.getConnection();
            }
            return besidePool(pool, credentials(pool));
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private static Properties credentials(HikariDataSource pool) {
        Properties properties = new Properties();
        properties.putAll(pool.getDataSourceProperties());
        if (pool.getUsername() != null) {
            properties.setProperty("user", pool.getUsername());
        }
        if (pool.getPassword() != null) {
            properties.setProperty("password", pool.getPassword());
        }
        return properties;
    }

    private static boolean isLoopback(String hosts) {
        for (String host : hosts.split(",")) {
            if (!List.of("localhost", "127.0.0.1", "::1", "[::1]").contains(host.trim())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Asks the LISTEN connection for an answer: reading notifications writes nothing, so a connection
     * gone silent without a word (a firewall's idle timeout, a paused or failed-over host, a cut
     * without a reset) was never noticed, and the worker heard no notification again until it
     * restarted. An unanswered probe ends the connection: the loop connects again and resyncs.
     */
    private static void probe(Connection connection) throws SQLException {
        if (!connection.isValid(PROBE_TIMEOUT_SECONDS)) {
            throw new SQLException("the LISTEN connection answered no probe within " + PROBE_TIMEOUT_SECONDS + " s");
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

    /** What a loop's log line says of a failure: its message, and an Error's class (a stack overflow has no message). */
    static String reason(Throwable failure) {
        return failure instanceof Error ? failure.toString() : failure.getMessage();
    }

    static void dispatch(String payload, Listener listener) {
        if (payload == null || payload.length() < 3 || payload.charAt(1) != ':') {
            return;
        }
        String value = payload.substring(2);
        switch (payload.charAt(0)) {
            case 'q' -> listener.queueReadyOnListenerThread(value); // dispatched on the listener's thread
            case 'o' -> listener.orphansReaped(value);
            case 'c' -> jobId(payload, value, listener::cancelRequested);
            case 'e' -> {
                if (listener.followsEvents()) { // else nobody to wake: not parsed (one per completion batch)
                    for (String id : value.split(",")) { // a completion batch announces up to 100 jobs at once
                        jobId(payload, id, listener::eventsAppended);
                    }
                }
            }
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
