-- A dependency's outcome outlives its row. Deleting a job (rm, retention) records its status on
-- the dependency rows that name it (outcome), and every reader of a dependency's status reads it
-- through skiplock_dependency_states: the job's status while its row exists, else the recorded
-- outcome, else 'deleted' (its row was deleted before the dependent's enqueue committed, so nothing
-- recorded how it ended). Before, a statement joined the job and read a deleted dependency as no
-- unfinished one: a dependent whose dependency was cancelled and deleted while its enqueue was
-- uncommitted was queued and ran. (The enqueue itself records the outcome of a dependency it read
-- ended, insert_dependencies: its rows are not yet visible to a delete.) Only an ended job's status
-- is recorded: a job deleted unfinished (by hand) reads 'deleted' too.
-- A 'deleted' dependency fails its dependent as a failed one does
-- (the settle names it: "dependency <id> deleted"); a dependency deleted after it succeeded still
-- counts as succeeded. Rows naming a job deleted before this migration read as succeeded, as every
-- release read them until now.
ALTER TABLE skiplock_job_dependencies ADD COLUMN outcome text;

-- The count, not NOT EXISTS: as an anti join PostgreSQL reads the whole of skiplock_jobs (2 s at
-- 2 million jobs, under the ALTER's lock of this table), where a lookup per dependency row is cheap.
UPDATE skiplock_job_dependencies AS d SET outcome = 'succeeded'
WHERE (SELECT count(*) FROM skiplock_jobs AS p WHERE p.id = d.depends_on) = 0;

CREATE VIEW skiplock_dependency_states AS
SELECT d.job_id, d.depends_on, coalesce(p.status, d.outcome, 'deleted') AS status
FROM skiplock_job_dependencies AS d
LEFT JOIN skiplock_jobs AS p ON p.id = d.depends_on;

CREATE OR REPLACE FUNCTION skiplock_job_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM skiplock_job_events WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_dependencies WHERE job_id = OLD.id;
    UPDATE skiplock_job_dependencies
    SET outcome = CASE WHEN OLD.status IN ('succeeded', 'failed', 'timed_out', 'cancelled') THEN OLD.status END
    WHERE depends_on = OLD.id;
    DELETE FROM skiplock_job_steps WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_signals WHERE job_id = OLD.id;
    RETURN NULL;
END
$$;

-- The dependency trigger of 0027, reading its dependents' dependencies through the view.
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
          AND NOT EXISTS (SELECT 1 FROM skiplock_dependency_states AS d
                          WHERE d.job_id = j.id AND d.status <> 'succeeded')
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
