package dev.skiplock.sqlite;

import dev.skiplock.spi.Notifier;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * SQLite has no cross-process notifications: this notifier wakes the workers of every Skiplock
 * instance in this JVM that uses the same database file. Workers in other processes find new jobs
 * by polling, and learn of cancels at their next heartbeat.
 */
final class SqliteNotifier implements Notifier {
    /** Started listeners per database file, shared by every instance in this JVM. */
    private static final ConcurrentHashMap<Path, Set<Listener>> LISTENERS = new ConcurrentHashMap<>();

    private final DataSource dataSource;
    private volatile Path file;
    private volatile Listener listener;

    SqliteNotifier(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public void start(Listener newListener) {
        listener = newListener;
        LISTENERS.computeIfAbsent(file(), key -> ConcurrentHashMap.newKeySet()).add(newListener);
    }

    @Override
    public void publishQueueReady(String queue) {
        forEachListener(target -> target.queueReady(queue));
    }

    @Override
    public void publishCancel(UUID jobId) {
        forEachListener(target -> target.cancelRequested(jobId));
    }

    @Override
    public void close() {
        Listener started = listener;
        if (started != null) {
            LISTENERS.computeIfPresent(file(), (key, set) -> {
                set.remove(started);
                return set.isEmpty() ? null : set;
            });
        }
    }

    private void forEachListener(Consumer<Listener> action) {
        Set<Listener> listeners = LISTENERS.get(file());
        if (listeners != null) {
            listeners.stream().filter(target -> target != listener).forEach(action);
        }
    }

    /**
     * The database file, read once from the connection (works for data sources we did not create
     * too): as SQLite opened it, not as the URL spells it. Read from the URL, {@code file:jobs.db},
     * {@code ./jobs.db} and a link to it were three files, and instances using them apart never
     * woke each other's workers (they waited for their poll).
     */
    private Path file() {
        Path known = file;
        if (known == null) {
            try (Connection connection = dataSource.getConnection();
                    Statement statement = connection.createStatement();
                    ResultSet databases = statement.executeQuery("PRAGMA database_list")) {
                String opened = "";
                while (databases.next()) {
                    if ("main".equals(databases.getString("name"))) {
                        opened = databases.getString("file");
                    }
                }
                known = opened == null || opened.isEmpty()
                        ? Path.of(connection.getMetaData().getURL()) // in memory: its URL is all there is
                        : realPath(Path.of(opened));
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read the SQLite database path: " + e.getMessage(), e);
            }
            file = known;
        }
        return known;
    }

    private static Path realPath(Path opened) {
        try {
            return opened.toRealPath();
        } catch (java.io.IOException e) {
            return opened.toAbsolutePath().normalize();
        }
    }
}
