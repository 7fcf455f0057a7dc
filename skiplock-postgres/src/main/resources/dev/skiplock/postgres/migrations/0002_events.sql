-- The job event log (DESIGN §5): status changes, progress updates and log lines, append-only.
-- seq is global and increasing, so it also orders one job's events and serves as the SSE id.
CREATE TABLE skiplock_job_events (
    seq     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id  uuid        NOT NULL,
    ts      timestamptz NOT NULL DEFAULT now(),
    attempt integer     NOT NULL,
    type    text        NOT NULL CHECK (type IN ('status', 'log', 'progress', 'step')),
    status  text,
    step    text,
    stream  text,
    message text,
    data    jsonb
);

CREATE INDEX skiplock_job_events_job ON skiplock_job_events (job_id, seq);

ALTER TABLE skiplock_jobs ADD COLUMN progress jsonb;

-- Status and progress events are written by statement-level triggers: every statement that
-- changes them (claim, completion, cancel, retry, release) records its events in the same
-- transaction with one INSERT per statement, not one trigger call per row. Terminal statuses
-- notify followers of the job's events.
CREATE FUNCTION skiplock_jobs_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO skiplock_job_events (job_id, attempt, type, status)
    SELECT n.id, n.attempt, 'status', n.status FROM new_rows AS n;
    RETURN NULL;
END
$$;

CREATE FUNCTION skiplock_jobs_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO skiplock_job_events (job_id, attempt, type, status, message, data)
    SELECT n.id, n.attempt,
           CASE WHEN n.status IS DISTINCT FROM o.status THEN 'status' ELSE 'progress' END,
           CASE WHEN n.status IS DISTINCT FROM o.status THEN n.status END,
           CASE WHEN n.status IS DISTINCT FROM o.status AND n.status <> 'running'
                     AND n.last_error IS DISTINCT FROM o.last_error THEN n.last_error END,
           CASE WHEN n.status IS DISTINCT FROM o.status THEN NULL ELSE n.progress END
    FROM new_rows AS n JOIN old_rows AS o ON o.id = n.id
    WHERE n.status IS DISTINCT FROM o.status OR n.progress IS DISTINCT FROM o.progress;
    PERFORM pg_notify('skiplock:' || current_schema(), 'e:' || n.id)
    FROM new_rows AS n JOIN old_rows AS o ON o.id = n.id
    WHERE n.status IS DISTINCT FROM o.status
      AND n.status IN ('succeeded', 'failed', 'timed_out', 'cancelled');
    RETURN NULL;
END
$$;

CREATE TRIGGER skiplock_jobs_inserted AFTER INSERT ON skiplock_jobs
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION skiplock_jobs_inserted();

CREATE TRIGGER skiplock_jobs_updated AFTER UPDATE ON skiplock_jobs
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION skiplock_jobs_updated();

-- Queues a worker must not claim from (pause/resume); absent means running.
CREATE TABLE skiplock_queues (
    queue  text    PRIMARY KEY,
    paused boolean NOT NULL DEFAULT false
);

-- Worker registry (DESIGN §5): one row per worker instance, refreshed by its heartbeat.
CREATE TABLE skiplock_workers (
    id                text        PRIMARY KEY,
    host              text        NOT NULL,
    pid               bigint      NOT NULL,
    queues            jsonb       NOT NULL,
    concurrency       integer     NOT NULL,
    started_at        timestamptz NOT NULL DEFAULT now(),
    last_heartbeat_at timestamptz NOT NULL DEFAULT now(),
    stopped_at        timestamptz
);

-- Deleting jobs (rm, retention) deletes their events in the same statement's transaction.
CREATE FUNCTION skiplock_jobs_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM skiplock_job_events AS e USING old_rows AS o WHERE e.job_id = o.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER skiplock_jobs_deleted AFTER DELETE ON skiplock_jobs
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION skiplock_jobs_deleted();
