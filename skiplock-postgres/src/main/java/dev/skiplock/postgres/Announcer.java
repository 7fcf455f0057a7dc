package dev.skiplock.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the notifications of enqueues that committed in Skiplock's own transactions while others
 * of the same instance were in flight (a lone enqueue notifies in its statement:
 * {@code JobInserter.insertCommitted}), after their commit, from one thread: whatever arrived while
 * the previous statement ran goes out in the next one, once per distinct payload.
 *
 * <p>Why not {@code pg_notify} in each enqueue's own statement: PostgreSQL takes one lock for every
 * committing transaction that notifies, and holds it through the commit's WAL flush, so notifying
 * enqueues commit one at a time: the HTTP submit path's backends waited on that lock
 * ({@code Lock:object}); wrk against {@code skiplock serve}, 8 connections: 1,891 submits/s, p99
 * 29.9 ms with the statement's notification, 2,404/s, p99 7.6 ms with this. Here only this
 * thread's statements take it, and they write nothing to flush.
 *
 * <p>A notification is a hint (polling is the safety net): one lost with a crash between a commit
 * and its announcement delays a job by one poll interval. Enqueues in the caller's transaction still
 * notify in their statement, since only their commit may announce them.
 */
final class Announcer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Announcer.class);
    private static final String NOTIFY =
            "SELECT count(pg_notify('skiplock:' || current_schema(), payload)) FROM unnest(CAST(? AS text[])) AS payload";
    /** The most payloads one statement carries. */
    private static final int MAX_BATCH = 1000;

    private final DataSource dataSource;
    private final LinkedBlockingQueue<String> pending = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean running = true;

    Announcer(DataSource dataSource) {
        this.dataSource = dataSource;
        this.thread = Thread.ofPlatform().name("skiplock-announce").daemon().start(this::loop);
    }

    /** Sends {@code payload} (e.g. {@code q:<queue>}) soon, after what was announced before it. */
    void announce(String payload) {
        pending.add(payload);
    }

    /** Sends what is pending, then stops. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        while (running || !pending.isEmpty()) {
            try {
                String first = pending.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                List<String> batch = new ArrayList<>();
                batch.add(first);
                pending.drainTo(batch, MAX_BATCH - 1);
                send(new LinkedHashSet<>(batch));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void send(Set<String> payloads) {
        sendNow(dataSource, payloads);
    }

    /** Sends the payloads on the calling thread, in one statement on a pooled connection. */
    static void sendNow(DataSource dataSource, String payload) {
        sendNow(dataSource, Set.of(payload));
    }

    private static void sendNow(DataSource dataSource, Set<String> payloads) {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            try (PreparedStatement statement = connection.prepareStatement(NOTIFY)) {
                statement.setArray(1, connection.createArrayOf("text", payloads.toArray()));
                statement.execute();
                if (!autoCommit) {
                    connection.commit(); // an application's pool may hand out connections in a transaction
                }
            } catch (SQLException | RuntimeException | Error e) {
                if (!autoCommit) {
                    connection.rollback();
                }
                throw e;
            }
        } catch (SQLException | RuntimeException | Error e) {
            // A lost hint: the listeners' polling finds the jobs within one poll interval. An Error
            // too: the thread must not die of it (nothing would be announced again, and what it is
            // handed would pile up in its queue).
            LOG.warn("could not announce {} notifications (polling covers them): {}", payloads.size(),
                    PostgresNotifier.reason(e));
        }
    }
}
