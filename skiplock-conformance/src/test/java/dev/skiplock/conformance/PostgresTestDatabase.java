package dev.skiplock.conformance;

import dev.skiplock.testing.SkiplockTestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A fresh schema per test in a real PostgreSQL: the server named by {@code SKIPLOCK_TEST_PG_URL}
 * (a JDBC URL) if set, else one embedded PostgreSQL started once per test JVM. Never skipped.
 */
final class PostgresTestDatabase implements TestDatabase {
    static final String ENV_URL = SkiplockTestDatabase.PG_URL_VARIABLE;

    private final String schema = "skiplock_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    private final String base;
    private final String url;

    PostgresTestDatabase() {
        this(server());
    }

    /** A fresh schema on the server at {@code base} (a JDBC URL) rather than the shared one. */
    PostgresTestDatabase(String base) {
        this.base = base;
        execute(base, "CREATE SCHEMA " + schema);
        url = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    /** The JDBC URL of the shared server: skiplock-testing's, so one embedded PostgreSQL serves both per JVM. */
    static String server() {
        return SkiplockTestDatabase.postgresServer();
    }

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public void expireLease(DataSource dataSource, UUID jobId) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET locked_until = now() - interval '1 second' WHERE id = ?",
                jobId);
    }

    @Override
    public void expireEveryLease(DataSource dataSource) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET locked_until = now() - interval '1 second'"
                + " WHERE status = 'running'");
    }

    @Override
    public void stealLease(DataSource dataSource, UUID jobId, String otherWorker) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET locked_by = ?, lease_token = gen_random_uuid() WHERE id = ?",
                otherWorker, jobId);
    }

    @Override
    public void insertWithoutNotification(DataSource dataSource, UUID id, String kind) {
        // counted as insert_jobs counts its jobs (migration 0015)
        Jdbc.update(dataSource, "WITH inserted AS (INSERT INTO skiplock_jobs (id, tenant, queue, kind, args, metadata,"
                + " priority, status, max_attempts, available_at, requested_at)"
                + " VALUES (?, 'default', 'default', ?, '{}', '{}', 0, 'queued', 1, now(), now()) RETURNING id)"
                + " INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)"
                + " SELECT 'default', 'default', 'queued', count(*) FROM inserted", id, kind);
    }

    @Override
    public int terminateListeners(DataSource dataSource) {
        return countListeners(dataSource, "SELECT count(pg_terminate_backend(pid))");
    }

    @Override
    public int listenerCount(DataSource dataSource) {
        return countListeners(dataSource, "SELECT count(*)");
    }

    private int countListeners(DataSource dataSource, String select) {
        String sql = select + " FROM pg_stat_activity WHERE datname = current_database() AND query = ?";
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, "LISTEN \"skiplock:" + schema + "\"");
            try (var row = statement.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean notifiesAcrossProcesses() {
        return true;
    }

    @Override
    public boolean concurrentWriters() {
        return true;
    }

    @Override
    public List<String> countTables() {
        return List.of("skiplock_job_counts", "skiplock_job_counts_folded");
    }

    @Override
    public void makeOrphan(DataSource dataSource, UUID jobId, String queue) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET queue = ?, status = 'running', attempt = 1, started_at = requested_at,"
                + " locked_by = NULL, locked_until = NULL, lease_token = NULL, claim_token = ?, host = 'dead-host'"
                + " WHERE id = ?", queue, UUID.randomUUID(), jobId);
    }

    @Override
    public Object id(UUID jobId) {
        return jobId;
    }

    @Override
    public void startedEarlier(DataSource dataSource, UUID jobId, long millis) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET started_at = started_at - ? * interval '1 millisecond' WHERE id = ?",
                millis, jobId);
    }

    @Override
    public void endWait(DataSource dataSource, UUID jobId, String name) {
        Jdbc.update(dataSource, "UPDATE skiplock_job_steps SET wake_at = now() WHERE job_id = ? AND name = ?", jobId, name);
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET available_at = now() WHERE id = ?", jobId);
    }

    @Override
    public void loseClaim(DataSource dataSource, UUID jobId) {
        Jdbc.update(dataSource, "UPDATE skiplock_jobs SET status = 'queued', attempt = attempt - 1, started_at = NULL,"
                + " started_seq = NULL, locked_by = NULL, locked_until = NULL, lease_token = NULL, claim_token = NULL,"
                + " host = NULL WHERE id = ?", jobId);
    }

    @Override
    public void close() {
        // bounded: a backend a test left holding a lock in the schema fails the drop instead of holding the build
        execute(base, "SET lock_timeout = '60s'; DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    /** Runs {@code sql} on a connection of its own to {@code jdbcUrl}. */
    static void execute(String jdbcUrl, String sql) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /**
     * Fails the transaction open on {@code connection}: from here every statement sent on it fails,
     * so a test can show that what it does next asks the database nothing.
     */
    static void abort(Connection connection) {
        try (Statement failing = connection.createStatement()) {
            failing.execute("SELECT 1 / 0");
            throw new IllegalStateException("SELECT 1 / 0 did not fail");
        } catch (SQLException expected) {
            // the transaction is aborted
        }
    }
}
