-- Jobs per tenant, queue and status, kept beside the jobs so GET /queues, the dashboard and the
-- depth gauges never count the history (issue #14: 10 million finished jobs must not slow them).
--
-- The table holds deltas: every statement that inserts, deletes or changes the status of jobs
-- appends one row per (tenant, queue, status) it changed, and a group's count is the sum of its
-- rows. Appending, never updating one row per queue, keeps concurrent workers from queueing on
-- each other's row lock. The reaper folds each group's rows back into one
-- (compact_job_counts). Statement-level triggers with transition tables: one call per
-- statement, not per job, and they also see the status changes made by other triggers
-- (dependency release) and by COPY.
-- Nodes still running keep writing jobs while this migrates: the lock (held until the migration
-- commits) makes the count below and the triggers that keep it up see the same jobs.
LOCK TABLE skiplock_jobs IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE skiplock_job_counts (
    tenant text   NOT NULL,
    queue  text   NOT NULL,
    status text   NOT NULL,
    jobs   bigint NOT NULL
);

INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)
SELECT tenant, queue, status, count(*) FROM skiplock_jobs GROUP BY tenant, queue, status;

-- Jobs that reached a terminal status, per tenant, queue and minute (the dashboard's throughput
-- chart): deltas appended by the same triggers, folded by the reaper, kept for an hour. Deletes
-- and retries never subtract: a finish stays counted in its minute.
CREATE TABLE skiplock_job_throughput (
    tenant   text        NOT NULL,
    queue    text        NOT NULL,
    minute   timestamptz NOT NULL,
    finished bigint      NOT NULL
);

CREATE FUNCTION skiplock_job_counted_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH inserted AS (
        SELECT tenant, queue, status, count(*) AS jobs FROM inserted_jobs GROUP BY tenant, queue, status
    ), counted AS (
        INSERT INTO skiplock_job_counts (tenant, queue, status, jobs) SELECT tenant, queue, status, jobs FROM inserted
    )
    -- a job can start out finished: failed at enqueue because a dependency already failed
    INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)
    SELECT tenant, queue, date_trunc('minute', now()), sum(jobs) FROM inserted
    WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
    GROUP BY tenant, queue;
    RETURN NULL;
END $$;

-- Each updated row leaves its old group (-1) and joins its new one (+1); a row whose tenant, queue
-- and status stayed (a heartbeat) cancels out in its group. Summing per group needs no join of the
-- two transition tables (a join without statistics became a nested loop: quadratic in the rows of
-- a completion batch, and it tripled the drain time). A terminal group that grew counts as
-- finished in this minute.
CREATE FUNCTION skiplock_job_counted_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH changes AS (
        SELECT tenant, queue, status, sum(delta) AS jobs FROM (
            SELECT tenant, queue, status, -1 AS delta FROM old_jobs
            UNION ALL
            SELECT tenant, queue, status, 1 FROM new_jobs
        ) moved
        GROUP BY tenant, queue, status
        HAVING sum(delta) <> 0
    ), counted AS (
        INSERT INTO skiplock_job_counts (tenant, queue, status, jobs) SELECT tenant, queue, status, jobs FROM changes
    )
    INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)
    SELECT tenant, queue, date_trunc('minute', now()), sum(jobs) FROM changes
    WHERE jobs > 0 AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
    GROUP BY tenant, queue;
    RETURN NULL;
END $$;

CREATE FUNCTION skiplock_job_counted_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)
    SELECT tenant, queue, status, -count(*) FROM deleted_jobs GROUP BY tenant, queue, status;
    RETURN NULL;
END $$;

CREATE TRIGGER skiplock_job_counted_inserted AFTER INSERT ON skiplock_jobs
    REFERENCING NEW TABLE AS inserted_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION skiplock_job_counted_inserted();
CREATE TRIGGER skiplock_job_counted_updated AFTER UPDATE ON skiplock_jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION skiplock_job_counted_updated();
CREATE TRIGGER skiplock_job_counted_deleted AFTER DELETE ON skiplock_jobs
    REFERENCING OLD TABLE AS deleted_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION skiplock_job_counted_deleted();

-- The job list over a long history (list_jobs' second half): a filter on queue, kind or status
-- reads a range of one of these instead of walking every finished job. Each finished job adds one
-- entry to each, once, when it finishes (a live job's updates never match the predicate); the bench
-- drain showed no difference beyond its noise.
CREATE INDEX skiplock_jobs_history_queue ON skiplock_jobs (tenant, queue, id)
    WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled');
CREATE INDEX skiplock_jobs_history_kind ON skiplock_jobs (tenant, kind, id)
    WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled');
CREATE INDEX skiplock_jobs_history_status ON skiplock_jobs (tenant, status, id)
    WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled');
