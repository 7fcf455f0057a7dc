-- The claim runs in a function whose statement PostgreSQL plans once per connection, and again, to
-- the same shape, after an ANALYZE or a change of the tables it reads (issue #12).
-- As a prepared statement, claim_jobs was planned again for each call whenever the table had
-- statistics (autovacuum's ANALYZE, on any real queue): a generic plan of four scans, LIMITs of a
-- parameter and a join looks costlier than a plan for the call's values, so PostgreSQL chose the
-- latter, about 0.3-0.4 ms of planning per claim (measured: a drain of 50,000 no-op jobs after an
-- ANALYZE ran about 10 % slower than before it, and pickup p50 0.2-0.3 ms higher). Here the plan is
-- generic (plan_cache_mode), and it cannot depend on the statistics either: planned while the
-- queue was empty, a generic plan scanned and sorted the whole table for every claim of the burst
-- that followed (the table's pages read once per claim, a drain at a quarter of its speed). So
-- the planner may not choose a sequential or bitmap scan or a sort: each part reads
-- skiplock_jobs_claimable in claim order, and the update reaches each row by its primary key (so
-- started_seq is drawn in id order; the rows come back in claim order). These settings hold while
-- the function runs: for the triggers its update fires too, whose statements, when a connection's
-- first claim comes before its first completion (the warm-up's rehearsal), are planned under them
-- (the counting trigger's aggregate of its transition tables, the dependency trigger's probe of
-- skiplock_job_dependencies: both read the same way either way). A sort or a disabled scan costs a
-- plan ten billion, past jit_above_cost: JIT is off here, or it compiled every claim (measured:
-- 0.45 s a claim). Parameter names must not be column names: PL/pgSQL refuses a name that is both.
--
-- Claims up to max_jobs jobs of from_queue in claim order. SKIP LOCKED lets concurrent claimers (any
-- process) take disjoint rows without waiting on each other. The attempt is counted here, at claim,
-- so a job that kills its worker still uses up an attempt. Lease times use the database clock,
-- never the worker's. token is a fresh random token the worker draws for this statement: the
-- fence of every later write of this execution (see migration 0006), and its identity
-- (claim_token) through adoptions. The started event is read from started_seq (migration 0012);
-- the previous attempt's, which this claim overwrites, is written as a row first.
--
-- The claim starts from the claimer's floor (ClaimFloor: floor_priority, floor_at, floor_id,
-- a job it claimed last; QueueFloor): jobs of a higher or a lower priority from the start of their part of
-- skiplock_jobs_claimable; jobs of the floor's priority from floor_at less ClaimFloor.LAG, 100 ms
-- (floor_recent_at), skipping the jobs of floor_at itself before floor_id (the
-- rest of a batch enqueued in one transaction). A claimed job leaves its entry in the index until
-- vacuum removes it, and while any snapshot older than the claim is held (a long transaction
-- anywhere on the database) vacuum cannot: a claim from the start of the index then visits every
-- job claimed since that snapshot, in the heap, before the first one it may take (measured: 12.6 ms
-- for 50,000). A job that became claimable further behind (its enqueue committed more than the lag
-- after it began; a backdated available_at) is found by the claimer's look-behind
-- (first_claimable), which lowers the floor. Without a floor floor_priority is above every
-- priority: the whole index, in order. The parts are CTEs (materialized: FOR UPDATE is not allowed
-- under UNION); a CTE is read only as far as next takes rows, so no row beyond max_jobs is locked.
--
-- synchronous_commit stays off until the claim's transaction ends (set_config's third argument):
-- a claim lost in a crash only makes the job claimable again, and the next claim draws a new
-- token, so the lost claim's execution can never write (its outcome is rejected, its run
-- directory is its own). Measured: drain ~30k -> ~57k jobs/s.
CREATE FUNCTION skiplock_claim_jobs(from_queue text, floor_priority bigint, floor_recent_at timestamptz,
                                    floor_at timestamptz, floor_id uuid, max_jobs integer, worker text,
                                    lease_ms bigint, token uuid, resumable_kinds jsonb, worker_host text)
RETURNS SETOF skiplock_jobs LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan SET jit = off
SET enable_seqscan = off SET enable_bitmapscan = off SET enable_sort = off
AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY
    WITH higher AS MATERIALIZED (
        SELECT id, started_seq, started_at, attempt FROM skiplock_jobs
        WHERE status = 'queued' AND queue = from_queue AND available_at <= now()
          AND priority > floor_priority
          AND NOT EXISTS (SELECT 1 FROM skiplock_queues AS q WHERE q.queue = from_queue AND q.paused)
        ORDER BY priority DESC, available_at, id
        LIMIT max_jobs
        FOR UPDATE SKIP LOCKED
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
        SELECT id, started_seq, started_at, attempt FROM skiplock_jobs
        WHERE status = 'queued' AND queue = from_queue AND available_at <= now()
          AND priority < floor_priority
          AND NOT EXISTS (SELECT 1 FROM skiplock_queues AS q WHERE q.queue = from_queue AND q.paused)
        ORDER BY priority DESC, available_at, id
        LIMIT max_jobs
        FOR UPDATE SKIP LOCKED
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
