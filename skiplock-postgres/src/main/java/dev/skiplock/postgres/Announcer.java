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
 * Sends the notifications of enqueues that committed in Skiplock's own transactions, after their
 * commit, from one thread: whatever arrived while the previous statement ran goes out in the next
 * one, once per distinct payload.
 *
 * <p>Why not {@code pg_notify} in the enqueue's own statement: PostgreSQL takes one lock for every
 * committing transaction that notifies, and holds it through the commit's WAL flush, so notifying
 * enqueues commit one at a time. Measured with {@code skiplock bench submit}: the HTTP submit path
 * saturated near 600 jobs/s with its backends waiting on that lock ({@code Lock:object}). Here only
 * this thread's statements take it, and they write nothing to flush.
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
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(NOTIFY)) {
            statement.setArray(1, connection.createArrayOf("text", payloads.toArray()));
            statement.execute();
            if (!connection.getAutoCommit()) {
                connection.commit(); // an application's pool may hand out connections in a transaction
            }
        } catch (SQLException | RuntimeException e) {
            // A lost hint: the listeners' polling finds the jobs within one poll interval.
            LOG.warn("could not announce {} notifications (polling covers them): {}", payloads.size(), e.getMessage());
        }
    }
}
