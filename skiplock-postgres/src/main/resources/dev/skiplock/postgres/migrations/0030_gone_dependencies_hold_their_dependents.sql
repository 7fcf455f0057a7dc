-- A dependent one of whose dependencies is gone is not released when the others succeed: the
-- release read a dependency row whose job was deleted (rm, retention) as no unfinished dependency,
-- so a dependent whose dependency was cancelled and deleted before its enqueue committed ran once
-- its other dependency succeeded. It now waits, and settle_waiting_jobs fails it naming the
-- dependency deleted. The dependency trigger of 0027, with that one change.
CREATE OR REPLACE FUNCTION skiplock_dependency_finished() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    notified bigint;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM finished_jobs AS f
                   WHERE f.status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
                     AND EXISTS (SELECT 1 FROM skiplock_job_dependencies AS d WHERE d.depends_on = f.id)) THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM skiplock_jobs AS j
    WHERE j.id IN (SELECT d.job_id FROM finished_jobs AS f
                   JOIN skiplock_job_dependencies AS d ON d.depends_on = f.id
                   WHERE f.status IN ('succeeded', 'failed', 'timed_out', 'cancelled'))
      AND j.status = 'waiting'
    ORDER BY j.id
    FOR UPDATE;
    WITH released AS (
        UPDATE skiplock_jobs AS j
        SET status = 'queued', available_at = GREATEST(j.available_at, now())
        WHERE j.id IN (SELECT d.job_id FROM finished_jobs AS f
                       JOIN skiplock_job_dependencies AS d ON d.depends_on = f.id
                       WHERE f.status = 'succeeded')
          AND j.status = 'waiting'
          AND NOT EXISTS (SELECT 1 FROM skiplock_job_dependencies AS d
                          LEFT JOIN skiplock_jobs AS p ON p.id = d.depends_on
                          WHERE d.job_id = j.id AND (p.id IS NULL OR p.status <> 'succeeded'))
        RETURNING j.id, j.attempt, j.queue
    ), events AS (
        INSERT INTO skiplock_job_events (job_id, attempt, type, status)
        SELECT released.id, released.attempt, 'status', 'queued' FROM released
    )
    SELECT count(pg_notify('skiplock:' || current_schema(), 'q:' || queues.queue)) INTO notified
    FROM (SELECT DISTINCT queue FROM released) AS queues;
    WITH causes AS (
        SELECT DISTINCT ON (d.job_id) d.job_id, f.id, f.status
        FROM finished_jobs AS f
        JOIN skiplock_job_dependencies AS d ON d.depends_on = f.id
        WHERE f.status IN ('failed', 'timed_out', 'cancelled')
        ORDER BY d.job_id, f.id
    ), failed AS (
        UPDATE skiplock_jobs AS j
        SET status = 'failed', finished_at = now(),
            last_error = 'dependency ' || causes.id || ' ' || causes.status
        FROM causes
        WHERE j.id = causes.job_id AND j.status = 'waiting'
        RETURNING j.id, j.attempt, j.last_error
    ), events AS (
        INSERT INTO skiplock_job_events (job_id, attempt, type, status, message)
        SELECT failed.id, failed.attempt, 'status', 'failed', failed.last_error FROM failed
    )
    SELECT count(pg_notify('skiplock:' || current_schema(), 'e:' || failed.id)) INTO notified FROM failed;
    RETURN NULL;
END
$$;
