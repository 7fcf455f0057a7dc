-- The claim counts its jobs in its own statement, and the statement triggers of updates do not
-- run for it (issue #12). The claim (skiplock_claim_jobs) fired both of them at every call, an
-- empty one too: skiplock_job_counted_updated, to append the count deltas of queued -> running,
-- and skiplock_dependency_finished, which has nothing to do for a claim (no job finishes). Each is
-- a PL/pgSQL call over a transition table. pgbench -M prepared, one client, an empty claim of a
-- migrated database, the triggers enabled and disabled in turns: at a pickup's pace (-R 50, the
-- backend idle in between) 0.77-0.92 ms against 0.71-0.76 (medians of four 8-s runs 0.80 and
-- 0.72); back to back 0.24-0.27 against 0.20-0.22 ms. This version: 0.22-0.23 ms back to back
-- (one run of four 0.28); a one-job claim in a transaction rolled back, back to back, 0.44 ms
-- against 0.48 before it.
--
-- Both triggers now run only for a statement that runs without skiplock.bookkept_by_statement set
-- to 'on' (a statement-level trigger's WHEN is tested when its event is queued, before any call).
-- The claim function sets it for its own call only (a function's SET clause: restored when it
-- returns, or fails) and appends the claim's count deltas itself, as the enqueue statements do
-- since 0015. Every other update of skiplock_jobs fires both triggers as before: a statement that
-- sets the flag must count its own status changes and finish no job. Processes of any version go
-- on claiming through the function, so none needs to be stopped before this runs.
DROP TRIGGER skiplock_job_counted_updated ON skiplock_jobs;
CREATE TRIGGER skiplock_job_counted_updated AFTER UPDATE ON skiplock_jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
    FOR EACH STATEMENT WHEN (current_setting('skiplock.bookkept_by_statement', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION skiplock_job_counted_updated();
DROP TRIGGER skiplock_dependency_finished ON skiplock_jobs;
CREATE TRIGGER skiplock_dependency_finished AFTER UPDATE ON skiplock_jobs
    REFERENCING NEW TABLE AS finished_jobs
    FOR EACH STATEMENT WHEN (current_setting('skiplock.bookkept_by_statement', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION skiplock_dependency_finished();

CREATE OR REPLACE FUNCTION skiplock_claim_jobs(from_queue text, floor_priority bigint, floor_recent_at timestamptz,
                                    floor_at timestamptz, floor_id uuid, max_jobs integer, worker text,
                                    lease_ms bigint, token uuid, resumable_kinds jsonb, worker_host text)
RETURNS SETOF skiplock_jobs LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan SET jit = off
SET enable_seqscan = off SET enable_bitmapscan = off SET enable_sort = off
-- The statement triggers of updates skip this function's claim (below): it counts its jobs itself.
SET skiplock.bookkept_by_statement = 'on'
AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY
    WITH RECURSIVE higher_levels (level) AS (
        SELECT max(priority) FROM skiplock_jobs
        WHERE status = 'queued' AND queue = from_queue AND priority > floor_priority
          AND NOT EXISTS (SELECT 1 FROM skiplock_queues AS q WHERE q.queue = from_queue AND q.paused)
        UNION ALL
        SELECT (SELECT max(priority) FROM skiplock_jobs
                WHERE status = 'queued' AND queue = from_queue AND priority > floor_priority
                  AND priority < higher_levels.level)
        FROM higher_levels WHERE higher_levels.level IS NOT NULL
    ), lower_levels (level) AS (
        SELECT max(priority) FROM skiplock_jobs
        WHERE status = 'queued' AND queue = from_queue AND priority < floor_priority
          AND NOT EXISTS (SELECT 1 FROM skiplock_queues AS q WHERE q.queue = from_queue AND q.paused)
        UNION ALL
        SELECT (SELECT max(priority) FROM skiplock_jobs
                WHERE status = 'queued' AND queue = from_queue AND priority < lower_levels.level)
        FROM lower_levels WHERE lower_levels.level IS NOT NULL
    ), higher AS MATERIALIZED (
        SELECT due.* FROM higher_levels
        CROSS JOIN LATERAL (
            SELECT id, started_seq, started_at, attempt FROM skiplock_jobs
            WHERE status = 'queued' AND queue = from_queue AND available_at <= now()
              AND priority = higher_levels.level
            ORDER BY available_at, id
            LIMIT max_jobs
            FOR UPDATE SKIP LOCKED) AS due
        WHERE higher_levels.level IS NOT NULL
        LIMIT max_jobs
    ), recent AS MATERIALIZED (
        SELECT id, started_seq, started_at, attempt FROM skiplock_jobs
        WHERE status = 'queued' AND queue = from_queue AND available_at <= now()
          AND priority = floor_priority
          AND available_at >= floor_recent_at AND available_at < floor_at
          AND NOT EXISTS (SELECT 1 FROM skiplock_queues AS q WHERE q.queue = from_queue AND q.paused)
        ORDER BY priority DESC, available_at, id
        LIMIT max_jobs
        FOR UPDATE SKIP LOCKED
    ), at_floor AS MATERIALIZED (
        SELECT id, started_seq, started_at, attempt FROM skiplock_jobs
        WHERE status = 'queued' AND queue = from_queue AND available_at <= now()
          AND priority = floor_priority
          AND (available_at, id) >= (floor_at, floor_id)
          AND NOT EXISTS (SELECT 1 FROM skiplock_queues AS q WHERE q.queue = from_queue AND q.paused)
        ORDER BY priority DESC, available_at, id
        LIMIT max_jobs
        FOR UPDATE SKIP LOCKED
    ), lower AS MATERIALIZED (
        SELECT due.* FROM lower_levels
        CROSS JOIN LATERAL (
            SELECT id, started_seq, started_at, attempt FROM skiplock_jobs
            WHERE status = 'queued' AND queue = from_queue AND available_at <= now()
              AND priority = lower_levels.level
            ORDER BY available_at, id
            LIMIT max_jobs
            FOR UPDATE SKIP LOCKED) AS due
        WHERE lower_levels.level IS NOT NULL
        LIMIT max_jobs
    ), next AS (
        -- FOR UPDATE returns the locked row version: the previous attempt's started_seq is current.
        SELECT * FROM higher UNION ALL SELECT * FROM recent UNION ALL SELECT * FROM at_floor UNION ALL SELECT * FROM lower
        LIMIT max_jobs
    ), claimed AS (
    UPDATE skiplock_jobs AS j
    SET status = 'running', attempt = j.attempt + 1, locked_by = worker,
        locked_until = now() + lease_ms * interval '1 millisecond', started_at = now(),
        started_seq = nextval('skiplock_job_events_seq_seq'), lease_token = token, claim_token = token,
        -- A resumable kind's execution (a command's process) lives on this host: adoption heeds it.
        host = CASE WHEN j.kind IN (SELECT jsonb_array_elements_text(resumable_kinds)) THEN worker_host END
    -- Each claimed row through the primary key, whatever the planner expects of next (a join could
    -- hash the whole table).
    WHERE j.id = ANY (ARRAY(SELECT next.id FROM next))
    RETURNING j.*
    ), counted AS (
        -- What skiplock_job_counted_updated appended for a claim (0011): each claimed job leaves
        -- queued and enters running.
        INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)
        SELECT claimed.tenant, claimed.queue, moved.status, moved.delta * count(*)
        FROM claimed CROSS JOIN (VALUES ('queued', -1), ('running', 1)) AS moved (status, delta)
        GROUP BY claimed.tenant, claimed.queue, moved.status, moved.delta
    ), previous_attempts AS (
        INSERT INTO skiplock_job_events (seq, job_id, ts, attempt, type, status) OVERRIDING SYSTEM VALUE
        SELECT next.started_seq, next.id, next.started_at, next.attempt, 'status', 'running'
        FROM next JOIN claimed ON claimed.id = next.id
        WHERE next.started_seq IS NOT NULL
    )
    -- In claim order, as the jobs start.
    SELECT * FROM claimed ORDER BY priority DESC, available_at, id;
END
$$;
