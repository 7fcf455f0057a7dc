-- The dependency trigger runs once per statement instead of once per row (issue #12): as a row
-- trigger it called PL/pgSQL for every job that finished, though nearly none has dependents
-- (measured: ~4-6 % of a drain of no-op jobs). It now reads the statement's finished rows from
-- the transition table, which the counting trigger of 0011 already makes PostgreSQL collect for
-- every UPDATE, and does nothing more unless one of them has dependents. What it does then is
-- what the row trigger did (0006), for all of the statement's finished jobs at once: it locks
-- their waiting dependents in id order (the second of two transactions finishing dependencies of
-- the same job waits there, and its next statement's snapshot sees the first one's outcome),
-- queues those whose dependencies all succeeded, and fails those with a dependency that did not
-- succeed, naming it (the lowest id, if several finished in the statement). Jobs it fails are
-- finished rows of its own UPDATE, so the failure cascades through their dependents too. A row
-- whose status did not change is looked at again (transition tables carry no condition); the
-- release and the failure are idempotent, so that costs only the probe.
DROP TRIGGER skiplock_dependency_finished ON skiplock_jobs;

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
        SET status = 'queued', available_at = now()
        WHERE j.id IN (SELECT d.job_id FROM finished_jobs AS f
                       JOIN skiplock_job_dependencies AS d ON d.depends_on = f.id
                       WHERE f.status = 'succeeded')
          AND j.status = 'waiting'
          AND NOT EXISTS (SELECT 1 FROM skiplock_job_dependencies AS d
                          JOIN skiplock_jobs AS p ON p.id = d.depends_on
                          WHERE d.job_id = j.id AND p.status <> 'succeeded')
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

CREATE TRIGGER skiplock_dependency_finished AFTER UPDATE ON skiplock_jobs
    REFERENCING NEW TABLE AS finished_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION skiplock_dependency_finished();
