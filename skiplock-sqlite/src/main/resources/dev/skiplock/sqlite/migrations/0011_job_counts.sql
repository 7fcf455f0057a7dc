-- Jobs per tenant, queue and status, kept beside the jobs so GET /queues, the dashboard and the
-- depth gauges never count the history (issue #14). SQLite has one writer at a time, so one row
-- per group, updated by row triggers, queues nobody (PostgreSQL appends deltas instead).
--
-- A (tenant, queue) gets a row for every status with its first job, so a status change is one
-- UPDATE of two existing rows (-1 for the old status, +1 for the new), not an upsert per side:
-- the counts cost the drain one statement per transition. Rows at zero stay. A job's tenant and
-- queue never change after its insert (no statement sets them), which the update trigger relies on.
CREATE TABLE skiplock_job_counts (
    tenant TEXT    NOT NULL,
    queue  TEXT    NOT NULL,
    status TEXT    NOT NULL,
    jobs   INTEGER NOT NULL,
    PRIMARY KEY (tenant, queue, status)
) WITHOUT ROWID;

CREATE TABLE skiplock_job_statuses (status TEXT PRIMARY KEY) WITHOUT ROWID;
INSERT INTO skiplock_job_statuses (status)
VALUES ('waiting'), ('queued'), ('running'), ('succeeded'), ('failed'), ('timed_out'), ('cancelled');

INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)
SELECT g.tenant, g.queue, s.status,
       (SELECT count(*) FROM skiplock_jobs j WHERE j.tenant = g.tenant AND j.queue = g.queue AND j.status = s.status)
FROM (SELECT DISTINCT tenant, queue FROM skiplock_jobs) g CROSS JOIN skiplock_job_statuses s;

-- Jobs that reached a terminal status, per tenant, queue and minute (unix time / 60): the
-- dashboard's throughput chart. Kept for an hour (compact_job_counts); deletes and retries never
-- subtract.
CREATE TABLE skiplock_job_throughput (
    tenant   TEXT    NOT NULL,
    queue    TEXT    NOT NULL,
    minute   INTEGER NOT NULL,
    finished INTEGER NOT NULL,
    PRIMARY KEY (tenant, queue, minute)
) WITHOUT ROWID;

CREATE TRIGGER skiplock_job_counted_finished AFTER UPDATE OF status ON skiplock_jobs
WHEN NEW.status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
 AND OLD.status NOT IN ('succeeded', 'failed', 'timed_out', 'cancelled')
BEGIN
    INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)
    VALUES (NEW.tenant, NEW.queue, unixepoch() / 60, 1)
    ON CONFLICT (tenant, queue, minute) DO UPDATE SET finished = finished + 1;
END;

-- a job can start out finished: failed at enqueue because a dependency already failed
CREATE TRIGGER skiplock_job_counted_born_finished AFTER INSERT ON skiplock_jobs
WHEN NEW.status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
BEGIN
    INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)
    VALUES (NEW.tenant, NEW.queue, unixepoch() / 60, 1)
    ON CONFLICT (tenant, queue, minute) DO UPDATE SET finished = finished + 1;
END;

CREATE TRIGGER skiplock_job_counted_inserted AFTER INSERT ON skiplock_jobs
BEGIN
    INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)
    SELECT NEW.tenant, NEW.queue, status, 0 FROM skiplock_job_statuses
    WHERE NOT EXISTS (SELECT 1 FROM skiplock_job_counts
                      WHERE tenant = NEW.tenant AND queue = NEW.queue AND status = 'queued');
    UPDATE skiplock_job_counts SET jobs = jobs + 1
    WHERE tenant = NEW.tenant AND queue = NEW.queue AND status = NEW.status;
END;

CREATE TRIGGER skiplock_job_counted_updated AFTER UPDATE OF status ON skiplock_jobs
WHEN NEW.status IS NOT OLD.status
BEGIN
    UPDATE skiplock_job_counts SET jobs = jobs + CASE WHEN status = NEW.status THEN 1 ELSE -1 END
    WHERE tenant = NEW.tenant AND queue = NEW.queue AND status IN (OLD.status, NEW.status);
END;

CREATE TRIGGER skiplock_job_counted_deleted AFTER DELETE ON skiplock_jobs
BEGIN
    UPDATE skiplock_job_counts SET jobs = jobs - 1
    WHERE tenant = OLD.tenant AND queue = OLD.queue AND status = OLD.status;
END;
