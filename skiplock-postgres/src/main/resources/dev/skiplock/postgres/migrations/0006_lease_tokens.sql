-- Fencing by a token that is never reused (issue #10, fault 9). Claims and adoptions commit
-- asynchronously; a crash can lose a claim whose handler already started, and the next claim then
-- reused the same attempt number, so fencing on (locked_by, attempt) let the first execution's
-- outcome through. Every claim and every adoption now writes a fresh random token (a UUID the
-- worker draws per statement) and every write of a running job is fenced on it:
--   lease_token  the current holder's token: set by claim_jobs and adopt_orphans, cleared by the
--                reaper and by every finalization, so a stale holder can never write again;
--   claim_token  the token of the claim that started the execution, kept through adoptions: the
--                execution's identity (a command's run directory is named after it);
--   host         the host of the claiming worker: a command's run lives on that host only.
ALTER TABLE skiplock_jobs ADD COLUMN lease_token uuid,
                          ADD COLUMN claim_token uuid,
                          ADD COLUMN host text;

-- Jobs running when this migration ran were claimed by a process without tokens: stop those
-- processes before migrating (README "Upgrading"); their jobs are reaped and adopted as usual.

-- settle_waiting_jobs reads only waiting jobs; rows never waiting never enter this index.
CREATE INDEX skiplock_jobs_waiting ON skiplock_jobs (id) WHERE status = 'waiting';

-- Release of a job with several dependencies under READ COMMITTED (fault 2): when two of its
-- dependencies succeed in two concurrent transactions, each statement's snapshot shows the other
-- dependency still running, and neither released the job. Now the trigger first locks the waiting
-- dependents (FOR UPDATE, in id order); the second transaction waits there until the first
-- commits, and its next statement takes a new snapshot (PL/pgSQL under READ COMMITTED) that
-- sees the first dependency succeeded. Two completion batches that finish dependencies of the same
-- dependents in opposite orders can deadlock here; PostgreSQL aborts one after deadlock_timeout
-- (1 s), and its completer writes that batch again (nothing of it was applied). Enqueue no longer locks dependencies (FOR SHARE held by a
-- caller's transaction stalled a worker's whole completion batch); the race it closed (a
-- dependency finishing while a dependent is being enqueued) is settled by settle_waiting_jobs.
CREATE OR REPLACE FUNCTION skiplock_dependency_finished() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    notified bigint;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM skiplock_job_dependencies AS d WHERE d.depends_on = NEW.id) THEN
        RETURN NULL;
    END IF;
    IF NEW.status = 'succeeded' THEN
        PERFORM 1 FROM skiplock_jobs AS j
        WHERE j.id = ANY(ARRAY(SELECT d.job_id FROM skiplock_job_dependencies AS d WHERE d.depends_on = NEW.id))
          AND j.status = 'waiting'
        ORDER BY j.id
        FOR UPDATE;
        WITH released AS (
            UPDATE skiplock_jobs AS j
            SET status = 'queued', available_at = now()
            WHERE j.id = ANY(ARRAY(SELECT d.job_id FROM skiplock_job_dependencies AS d WHERE d.depends_on = NEW.id))
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
    ELSE
        WITH failed AS (
            UPDATE skiplock_jobs AS j
            SET status = 'failed', finished_at = now(),
                last_error = 'dependency ' || NEW.id || ' ' || NEW.status
            WHERE j.id = ANY(ARRAY(SELECT d.job_id FROM skiplock_job_dependencies AS d WHERE d.depends_on = NEW.id))
              AND j.status = 'waiting'
            RETURNING j.id, j.attempt, j.last_error
        ), events AS (
            INSERT INTO skiplock_job_events (job_id, attempt, type, status, message)
            SELECT failed.id, failed.attempt, 'status', 'failed', failed.last_error FROM failed
        )
        SELECT count(pg_notify('skiplock:' || current_schema(), 'e:' || failed.id)) INTO notified FROM failed;
    END IF;
    RETURN NULL;
END
$$;
