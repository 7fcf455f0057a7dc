-- The hot path (a claim, a success) fires no row trigger: the store writes its status events,
-- counts, finishes per minute and dependents' release itself, with the statements of hot_path.sql,
-- in the transaction of the change (issue #12). Those four triggers were about two thirds of what
-- SQLite did for a claimed and completed job (one connection, batches of 100: 34.5 µs a job with
-- them, 22–23.5 with the statements), and SQLite has no statement-level triggers; a row trigger
-- whose condition is false still costs most of a firing, so a condition cannot exempt the hot path.
--
-- SQLite fires an UPDATE OF trigger only for a statement whose SET names one of its columns. The
-- status triggers now name bookkept_by_trigger, which every statement that changes a status
-- outside the hot path sets (to 1; the value means nothing): release, unclaim, cancel, retry, the
-- completion of anything but a success, the settling of waiting jobs and these triggers' own
-- release and failure of dependents. claim_jobs, complete_successes and release_dependents (after a
-- success) name only status. A test (SqliteStatusBookkeepingTest) holds every status-changing
-- statement to one of the two ways.
ALTER TABLE skiplock_jobs ADD COLUMN bookkept_by_trigger INTEGER;

DROP TRIGGER skiplock_job_status_changed;
DROP TRIGGER skiplock_dependency_finished;
DROP TRIGGER skiplock_job_counted_finished;
DROP TRIGGER skiplock_job_counted_updated;

-- Created in the order of 0009 and 0011, so they fire in the same order as before (SQLite runs the
-- most recently created first).
CREATE TRIGGER skiplock_job_status_changed AFTER UPDATE OF bookkept_by_trigger ON skiplock_jobs
WHEN NEW.status IS NOT OLD.status
BEGIN
    INSERT INTO skiplock_job_events (job_id, attempt, type, status, message)
    VALUES (NEW.id, NEW.attempt, 'status', NEW.status,
            CASE WHEN NEW.status <> 'running' AND NEW.last_error IS NOT OLD.last_error THEN NEW.last_error END);
END;

CREATE TRIGGER skiplock_dependency_finished AFTER UPDATE OF bookkept_by_trigger ON skiplock_jobs
WHEN NEW.status IN ('succeeded', 'failed', 'timed_out', 'cancelled') AND OLD.status IS NOT NEW.status
     AND EXISTS (SELECT 1 FROM skiplock_job_dependencies WHERE depends_on = NEW.id)
BEGIN
    UPDATE skiplock_jobs
    SET status = 'queued', available_at = CAST(unixepoch('subsec') * 1000 AS INTEGER), bookkept_by_trigger = 1
    WHERE NEW.status = 'succeeded'
      AND status = 'waiting'
      AND id IN (SELECT job_id FROM skiplock_job_dependencies WHERE depends_on = NEW.id)
      AND NOT EXISTS (SELECT 1 FROM skiplock_job_dependencies AS d
                      JOIN skiplock_jobs AS p ON p.id = d.depends_on
                      WHERE d.job_id = skiplock_jobs.id AND p.status <> 'succeeded');
    UPDATE skiplock_jobs
    SET status = 'failed', finished_at = CAST(unixepoch('subsec') * 1000 AS INTEGER),
        last_error = 'dependency ' || NEW.id || ' ' || NEW.status, bookkept_by_trigger = 1
    WHERE NEW.status <> 'succeeded'
      AND status = 'waiting'
      AND id IN (SELECT job_id FROM skiplock_job_dependencies WHERE depends_on = NEW.id);
END;

CREATE TRIGGER skiplock_job_counted_finished AFTER UPDATE OF bookkept_by_trigger ON skiplock_jobs
WHEN NEW.status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
 AND OLD.status NOT IN ('succeeded', 'failed', 'timed_out', 'cancelled')
BEGIN
    INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)
    VALUES (NEW.tenant, NEW.queue, unixepoch() / 60, 1)
    ON CONFLICT (tenant, queue, minute) DO UPDATE SET finished = finished + 1;
END;

CREATE TRIGGER skiplock_job_counted_updated AFTER UPDATE OF bookkept_by_trigger ON skiplock_jobs
WHEN NEW.status IS NOT OLD.status
BEGIN
    UPDATE skiplock_job_counts SET jobs = jobs + CASE WHEN status = NEW.status THEN 1 ELSE -1 END
    WHERE tenant = NEW.tenant AND queue = NEW.queue AND status IN (OLD.status, NEW.status);
END;
