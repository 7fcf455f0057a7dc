package dev.skiplock.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    public void expireEveryLease(DataSource dataSource) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET locked_until = CAST(unixepoch('subsec') * 1000 AS INTEGER)"
                + " - 1000 WHERE status = 'running'");
    }

    @Override
    public void stealLease(DataSource dataSource, UUID jobId, String otherWorker) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET locked_by = ?, lease_token = ? WHERE id = ?", otherWorker,
                UUID.randomUUID().toString(), jobId.toString());
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
    public boolean concurrentWriters() {
        return false;
    }

    @Override
    public List<String> countTables() {
        return List.of("skiplock_job_counts");
    }

    @Override
    public void makeOrphan(DataSource dataSource, UUID jobId, String queue) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET queue = ?, status = 'running', attempt = 1, started_at = requested_at,"
                + " locked_by = NULL, locked_until = NULL, lease_token = NULL, claim_token = ?, host = 'dead-host'"
                + " WHERE id = ?", queue, UUID.randomUUID().toString(), jobId.toString());
    }

    @Override
    public Object id(UUID jobId) {
        return jobId.toString();
    }

    @Override
    public void startedEarlier(DataSource dataSource, UUID jobId, long millis) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET started_at = started_at - ? WHERE id = ?", millis, jobId.toString());
    }

    @Override
    public void endWait(DataSource dataSource, UUID jobId, String name) {
        String now = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
        Jdbc.update(dataSource, "UPDATE skiplock_job_steps SET wake_at = " + now + " WHERE job_id = ? AND name = ?",
                jobId.toString(), name);
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET available_at = " + now + " WHERE id = ?", jobId.toString());
    }

    @Override
    public void loseClaim(DataSource dataSource, UUID jobId) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET status = 'queued', attempt = attempt - 1, started_at = NULL,"
                + " started_seq = NULL, locked_by = NULL, locked_until = NULL, lease_token = NULL, claim_token = NULL,"
                + " host = NULL WHERE id = ?", jobId.toString());
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
