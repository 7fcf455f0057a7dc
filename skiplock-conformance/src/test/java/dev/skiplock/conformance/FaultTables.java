package dev.skiplock.conformance;

import java.util.List;
import javax.sql.DataSource;

/**
 * What a fault run reads from its database, including a record of deletions: retention deletes
 * finished jobs with their events during the run, so before each delete a trigger of the suite's
 * own copies the row (as it is at that moment) and its events into {@code fault_deleted_jobs} and
 * {@code fault_deleted_events}. Every read here is the union of the live tables and that record.
 */
final class FaultTables {
    /** Epoch milliseconds of a timestamp column, per dialect (SQLite stores them so). */
    private final String postgresMillis = "CAST(floor(extract(epoch FROM %s) * 1000) AS bigint)";
    private final DataSource dataSource;
    private final boolean postgres;

    FaultTables(DataSource dataSource, String database) {
        this.dataSource = dataSource;
        this.postgres = database.equals("postgres");
    }

    /** A job's last row: live, or as it was deleted ({@code deletedAtMillis} > 0). */
    record JobRow(String id, String kind, String status, int attempt, int maxAttempts, String lastError, String result,
            long finishedAtMillis, long deletedAtMillis, String cronSlot) {
        boolean deleted() {
            return deletedAtMillis > 0;
        }
    }

    /** A cron slot's marker: the schedule, the slot (epoch ms) and the job enqueued for it. */
    record CronMarker(String schedule, long slot, String jobId) {
    }

    /** A status or log event of a job. */
    record Event(String jobId, long seq, int attempt, String type, String status, String stream, String message,
            long atMillis) {
    }

    /** Creates the record of deletions and its trigger (after the migrations, before any worker starts). */
    void recordDeletions() {
        if (postgres) {
            Jdbc.update(dataSource, "CREATE TABLE fault_deleted_jobs (id uuid, kind text, status text, attempt integer,"
                    + " max_attempts integer, last_error text, result text, finished_at timestamptz, deleted_at timestamptz,"
                    + " cron_slot text)");
            Jdbc.update(dataSource, "CREATE TABLE fault_deleted_events (job_id uuid, seq bigint, attempt integer,"
                    + " type text, status text, stream text, message text, ts timestamptz)");
            // BEFORE: the product's AFTER DELETE trigger deletes the events. clock_timestamp(), not
            // now(): when the row was deleted, not when the deleting transaction began.
            Jdbc.update(dataSource, """
                    CREATE FUNCTION fault_job_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        INSERT INTO fault_deleted_jobs VALUES (OLD.id, OLD.kind, OLD.status, OLD.attempt,
                            OLD.max_attempts, OLD.last_error, CAST(OLD.result AS text), OLD.finished_at, clock_timestamp(),
                            (OLD.metadata -> 'cron' ->> 'schedule') || ' ' || (OLD.metadata -> 'cron' ->> 'slot'));
                        INSERT INTO fault_deleted_events SELECT job_id, seq, attempt, type, status, stream, message, ts
                            FROM skiplock_job_event_log WHERE job_id = OLD.id;
                        RETURN OLD;
                    END
                    $$""");
            Jdbc.update(dataSource, "CREATE TRIGGER fault_job_deleted BEFORE DELETE ON skiplock_jobs"
                    + " FOR EACH ROW EXECUTE FUNCTION fault_job_deleted()");
            return;
        }
        Jdbc.update(dataSource, "CREATE TABLE fault_deleted_jobs (id TEXT, kind TEXT, status TEXT, attempt INTEGER,"
                + " max_attempts INTEGER, last_error TEXT, result TEXT, finished_at INTEGER, deleted_at INTEGER,"
                + " cron_slot TEXT)");
        Jdbc.update(dataSource, "CREATE TABLE fault_deleted_events (job_id TEXT, seq INTEGER, attempt INTEGER,"
                + " type TEXT, status TEXT, stream TEXT, message TEXT, ts INTEGER)");
        Jdbc.update(dataSource, """
                CREATE TRIGGER fault_job_deleted BEFORE DELETE ON skiplock_jobs
                BEGIN
                    INSERT INTO fault_deleted_jobs VALUES (OLD.id, OLD.kind, OLD.status, OLD.attempt, OLD.max_attempts,
                        OLD.last_error, OLD.result, OLD.finished_at, CAST(unixepoch('subsec') * 1000 AS INTEGER),
                        json_extract(OLD.metadata, '$.cron.schedule') || ' ' || json_extract(OLD.metadata, '$.cron.slot'));
                    INSERT INTO fault_deleted_events SELECT job_id, seq, attempt, type, status, stream, message, ts
                        FROM skiplock_job_event_log WHERE job_id = OLD.id;
                END""");
    }

    /** Every job: its live row, or the row as it was deleted. */
    List<JobRow> jobs() {
        String cronSlot = postgres ? "(metadata -> 'cron' ->> 'schedule') || ' ' || (metadata -> 'cron' ->> 'slot')"
                : "json_extract(metadata, '$.cron.schedule') || ' ' || json_extract(metadata, '$.cron.slot')";
        String live = "SELECT id, kind, status, attempt, max_attempts, last_error, " + text("result") + ", "
                + millis("finished_at") + ", 0, " + cronSlot + " FROM skiplock_jobs";
        String deleted = "SELECT id, kind, status, attempt, max_attempts, last_error, result, " + millis("finished_at")
                + ", " + millis("deleted_at") + ", cron_slot FROM fault_deleted_jobs";
        return Jdbc.query(dataSource, live + " UNION ALL " + deleted, row -> new JobRow(row.getString(1),
                row.getString(2), row.getString(3), row.getInt(4), row.getInt(5), row.getString(6), row.getString(7),
                row.getLong(8), row.getLong(9), row.getString(10)));
    }

    /** Every cron slot marker (retention keeps them at least a day: all of this run's). */
    List<CronMarker> cronMarkers() {
        return Jdbc.query(dataSource, "SELECT schedule, slot, job_id FROM skiplock_cron_slots",
                row -> new CronMarker(row.getString(1), row.getLong(2), row.getString(3)));
    }

    /** Every status and log event, live or deleted with its job, in order. */
    List<Event> events() {
        String columns = "job_id, seq, attempt, type, status, stream, message, " + millis("ts");
        return Jdbc.query(dataSource, "SELECT * FROM (SELECT " + columns + " FROM skiplock_job_event_log"
                + " WHERE type IN ('status', 'log') UNION ALL SELECT " + columns + " FROM fault_deleted_events"
                + " WHERE type IN ('status', 'log')) AS every_event ORDER BY seq",
                row -> new Event(row.getString(1), row.getLong(2), row.getInt(3), row.getString(4), row.getString(5),
                        row.getString(6), row.getString(7), row.getLong(8)));
    }

    /** Jobs not finished yet. */
    long unfinished() {
        return Jdbc.query(dataSource, "SELECT count(*) FROM skiplock_jobs"
                + " WHERE status NOT IN ('succeeded', 'failed', 'timed_out', 'cancelled')", row -> row.getLong(1)).getFirst();
    }

    /**
     * Waiting jobs whose dependencies all succeeded (a deleted dependency counts with its status at
     * deletion). The dependency that succeeded last releases its dependents in its own transaction,
     * so a statement's snapshot should never show one.
     */
    List<String> waitingWithDependenciesSucceeded() {
        return Jdbc.query(dataSource, """
                SELECT w.id FROM skiplock_jobs AS w
                WHERE w.status = 'waiting'
                  AND NOT EXISTS (SELECT 1 FROM skiplock_job_dependencies AS d
                                  LEFT JOIN skiplock_jobs AS p ON p.id = d.depends_on
                                  LEFT JOIN fault_deleted_jobs AS x ON x.id = d.depends_on
                                  WHERE d.job_id = w.id AND COALESCE(p.status, x.status, 'unknown') <> 'succeeded')
                """, row -> row.getString(1));
    }

    /**
     * Up to {@code limit} finished {@code fault.work} jobs, those that finished first: what the
     * harness retries, racing retention, which deletes them next.
     */
    List<String> oldestFinishedWork(int limit) {
        return Jdbc.query(dataSource, "SELECT id FROM skiplock_jobs WHERE kind = 'fault.work'"
                + " AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled') ORDER BY finished_at LIMIT " + limit,
                row -> row.getString(1));
    }

    /** Rows of skiplock_job_dependencies whose dependent job no longer exists (retention deleted it). */
    long dependencyRowsOfDeletedJobs() {
        return Jdbc.query(dataSource, "SELECT count(*) FROM skiplock_job_dependencies AS d"
                + " WHERE NOT EXISTS (SELECT 1 FROM skiplock_jobs AS j WHERE j.id = d.job_id)", row -> row.getLong(1)).getFirst();
    }

    /** Up to {@code limit} running {@code fault.work} jobs, in random order: what the harness cancels. */
    List<String> someRunningWork(int limit) {
        return Jdbc.query(dataSource, "SELECT id FROM skiplock_jobs WHERE kind = 'fault.work' AND status = 'running'"
                + " ORDER BY random() LIMIT " + limit, row -> row.getString(1));
    }

    private String millis(String column) {
        return postgres ? postgresMillis.formatted(column) : column;
    }

    private String text(String column) {
        return postgres ? "CAST(" + column + " AS text)" : column;
    }
}
