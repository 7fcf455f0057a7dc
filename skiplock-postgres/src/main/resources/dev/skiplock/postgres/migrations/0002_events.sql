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

-- Status and progress events are written by row triggers, in the transaction of the change, so
-- no code path can change a status without logging it. Row triggers with a WHEN clause fire only
-- for rows whose status or progress changed (heartbeats and lease changes fire nothing) and need
-- no join: a statement-level version joining its transition tables picked nested loops and
-- stalled completion batches of 1,000 jobs (measured). Terminal statuses notify followers.
CREATE FUNCTION skiplock_job_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO skiplock_job_events (job_id, attempt, type, status, message)
        VALUES (NEW.id, NEW.attempt, 'status', NEW.status,
                CASE WHEN TG_OP = 'UPDATE' AND NEW.status <> 'running'
                          AND NEW.last_error IS DISTINCT FROM OLD.last_error THEN NEW.last_error END);
        IF NEW.status IN ('succeeded', 'failed', 'timed_out', 'cancelled') THEN
            PERFORM pg_notify('skiplock:' || current_schema(), 'e:' || NEW.id);
        END IF;
    ELSE
        INSERT INTO skiplock_job_events (job_id, attempt, type, data)
        VALUES (NEW.id, NEW.attempt, 'progress', NEW.progress);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER skiplock_job_inserted AFTER INSERT ON skiplock_jobs
    FOR EACH ROW EXECUTE FUNCTION skiplock_job_changed();

CREATE TRIGGER skiplock_job_changed AFTER UPDATE OF status, progress ON skiplock_jobs
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.progress IS DISTINCT FROM NEW.progress)
    EXECUTE FUNCTION skiplock_job_changed();

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

-- Deleting jobs (rm, retention) deletes their events in the same transaction.
CREATE FUNCTION skiplock_job_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM skiplock_job_events WHERE job_id = OLD.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER skiplock_job_deleted AFTER DELETE ON skiplock_jobs
    FOR EACH ROW EXECUTE FUNCTION skiplock_job_deleted();
