package dev.skiplock.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import javax.sql.DataSource;

/** A new SQLite file per test in a temp folder (a real file in WAL mode, never {@code :memory:}). */
final class SqliteTestDatabase implements TestDatabase {
    private final Path folder;

    SqliteTestDatabase() {
        try {
            folder = Files.createTempDirectory("skiplock-test-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String name() {
        return "sqlite";
    }

    @Override
    public String url() {
        return "jdbc:sqlite:" + folder.resolve("jobs.db");
    }

    @Override
    public void expireLease(DataSource dataSource, UUID jobId) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET locked_until = CAST(unixepoch('subsec') * 1000 AS INTEGER)"
                + " - 1000 WHERE id = ?", jobId.toString());
    }

    @Override
    public void stealLease(DataSource dataSource, UUID jobId, String otherWorker) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET locked_by = ? WHERE id = ?", otherWorker, jobId.toString());
    }

    @Override
    public void insertWithoutNotification(DataSource dataSource, UUID id, String kind) {
        Jdbc.update(dataSource, "INSERT INTO skiplock_jobs (id, tenant, queue, kind, args, metadata, priority, status,"
                + " max_attempts, available_at, requested_at)"
                + " VALUES (?, 'default', 'default', ?, '{}', '{}', 0, 'queued', 1,"
                + " CAST(unixepoch('subsec') * 1000 AS INTEGER), CAST(unixepoch('subsec') * 1000 AS INTEGER))",
                id.toString(), kind);
    }

    @Override
    public boolean notifiesAcrossProcesses() {
        return false;
    }

    @Override
    public void close() {
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
