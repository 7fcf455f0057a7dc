-- The claim passes over delayed jobs (issue #12). skiplock_jobs_claimable orders a queue's jobs by
-- priority, then available_at: within one priority the due jobs come first, but a part of the claim
-- that spans several priorities (higher and lower than the floor's, or the whole queue when the
-- claimer has no floor yet: a worker's first claims) could not stop at the first job not yet due.
-- It read the index entries of every delayed job of those priorities (the test of available_at is
-- made in the index, so no row) to reach the due jobs of the next priority or to find none: 500,000
-- jobs delayed by a day and nothing due took 27-55 ms a claim (no floor, or a floor at priority 0
-- with the delayed jobs at priority 5), and a claimer claims at each poll and each wake-up, a
-- delayed job's enqueue included. Those two parts now read the queue one priority at a time: the
-- priorities present, highest first, each found by one probe of the index below the last
-- (higher_levels, lower_levels), and in each priority its due jobs only, the range up to now()
-- (0.3-0.6 ms on the same jobs). The parts are read only as far as the claim takes jobs, so a claim
-- probes the priorities down to the one that fills it. Where none has due jobs it probes every
-- priority present, a few pages each: at the 2,001 priorities JobRequest allows, 18-20 ms a claim
-- (500,000 delayed jobs, 250 a priority; 29-33 ms before), where priorities of a few jobs each cost
-- the walk less than the probes. A paused queue probes none. The floor's own parts are unchanged,
-- and no probe reads inside them, where a held snapshot keeps the entries of the jobs claimed since
-- it (see 0016); a probe into another priority meets that priority's claimed entries as the walk
-- through it did before. What the claim takes, in which order, and which rows it locks (no row
-- beyond max_jobs) are as before; only the function's body changes, so processes of any version go
-- on claiming through it.
CREATE OR REPLACE FUNCTION skiplock_claim_jobs(from_queue text, floor_priority bigint, floor_recent_at timestamptz,
                                    floor_at timestamptz, floor_id uuid, max_jobs integer, worker text,
                                    lease_ms bigint, token uuid, resumable_kinds jsonb, worker_host text)
RETURNS SETOF skiplock_jobs LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan SET jit = off
SET enable_seqscan = off SET enable_bitmapscan = off SET enable_sort = off
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
