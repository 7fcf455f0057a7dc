-- Jobs per tenant, queue and status, kept beside the jobs so GET /queues, the dashboard and the
-- depth gauges never count the history (issue #14). SQLite has one writer at a time, so one row
-- per group, updated by row triggers, queues nobody (PostgreSQL appends deltas instead).
CREATE TABLE skiplock_job_counts (
    tenant TEXT    NOT NULL,
    queue  TEXT    NOT NULL,
    status TEXT    NOT NULL,
    jobs   INTEGER NOT NULL,
    PRIMARY KEY (tenant, queue, status)
) WITHOUT ROWID;

INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)
SELECT tenant, queue, status, count(*) FROM skiplock_jobs WHERE true GROUP BY tenant, queue, status;

CREATE TRIGGER skiplock_jobs_counted_inserted AFTER INSERT ON skiplock_jobs
BEGIN
    INSERT INTO skiplock_job_counts (tenant, queue, status, jobs) VALUES (NEW.tenant, NEW.queue, NEW.status, 1)
    ON CONFLICT (tenant, queue, status) DO UPDATE SET jobs = jobs + 1;
END;

CREATE TRIGGER skiplock_jobs_counted_updated AFTER UPDATE OF tenant, queue, status ON skiplock_jobs
WHEN NEW.status IS NOT OLD.status OR NEW.queue IS NOT OLD.queue OR NEW.tenant IS NOT OLD.tenant
BEGIN
    UPDATE skiplock_job_counts SET jobs = jobs - 1
    WHERE tenant = OLD.tenant AND queue = OLD.queue AND status = OLD.status;
    INSERT INTO skiplock_job_counts (tenant, queue, status, jobs) VALUES (NEW.tenant, NEW.queue, NEW.status, 1)
    ON CONFLICT (tenant, queue, status) DO UPDATE SET jobs = jobs + 1;
END;

CREATE TRIGGER skiplock_jobs_counted_deleted AFTER DELETE ON skiplock_jobs
BEGIN
    UPDATE skiplock_job_counts SET jobs = jobs - 1
    WHERE tenant = OLD.tenant AND queue = OLD.queue AND status = OLD.status;
END;
