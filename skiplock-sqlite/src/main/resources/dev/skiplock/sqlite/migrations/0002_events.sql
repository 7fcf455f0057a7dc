-- The job event log (DESIGN §5): status changes, progress updates and log lines, append-only.
-- seq is global and increasing, so it also orders one job's events and serves as the SSE id.
CREATE TABLE skiplock_job_events (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id  TEXT    NOT NULL,
    ts      INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)),
    attempt INTEGER NOT NULL,
    type    TEXT    NOT NULL CHECK (type IN ('status', 'log', 'progress', 'step')),
    status  TEXT,
    step    TEXT,
    stream  TEXT,
    message TEXT,
    data    TEXT
);

CREATE INDEX skiplock_job_events_job ON skiplock_job_events (job_id, seq);

ALTER TABLE skiplock_jobs ADD COLUMN progress TEXT;

-- Status and progress events are written by triggers, in the transaction of the change.
CREATE TRIGGER skiplock_jobs_inserted AFTER INSERT ON skiplock_jobs
BEGIN
    INSERT INTO skiplock_job_events (job_id, attempt, type, status)
    VALUES (NEW.id, NEW.attempt, 'status', NEW.status);
END;

CREATE TRIGGER skiplock_jobs_status_changed AFTER UPDATE OF status ON skiplock_jobs
WHEN NEW.status IS NOT OLD.status
BEGIN
    INSERT INTO skiplock_job_events (job_id, attempt, type, status, message)
    VALUES (NEW.id, NEW.attempt, 'status', NEW.status,
            CASE WHEN NEW.status <> 'running' AND NEW.last_error IS NOT OLD.last_error THEN NEW.last_error END);
END;

CREATE TRIGGER skiplock_jobs_progress_changed AFTER UPDATE OF progress ON skiplock_jobs
WHEN NEW.progress IS NOT OLD.progress AND NEW.status IS OLD.status
BEGIN
    INSERT INTO skiplock_job_events (job_id, attempt, type, data)
    VALUES (NEW.id, NEW.attempt, 'progress', NEW.progress);
END;

-- Queues a worker must not claim from (pause/resume); absent means running.
CREATE TABLE skiplock_queues (
    queue  TEXT    PRIMARY KEY,
    paused INTEGER NOT NULL DEFAULT 0
);

-- Worker registry (DESIGN §5): one row per worker instance, refreshed by its heartbeat.
CREATE TABLE skiplock_workers (
    id                TEXT    PRIMARY KEY,
    host              TEXT    NOT NULL,
    pid               INTEGER NOT NULL,
    queues            TEXT    NOT NULL,
    concurrency       INTEGER NOT NULL,
    started_at        INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)),
    last_heartbeat_at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)),
    stopped_at        INTEGER
);

-- Deleting jobs (rm, retention) deletes their events in the same transaction.
CREATE TRIGGER skiplock_jobs_deleted AFTER DELETE ON skiplock_jobs
BEGIN
    DELETE FROM skiplock_job_events WHERE job_id = OLD.id;
END;
