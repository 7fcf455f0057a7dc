-- The W3C trace context current when the job was enqueued (JobRequest.traceparent), returned with
-- the job so its attempts can join the enqueuer's trace. NULL for jobs enqueued without one.
ALTER TABLE skiplock_jobs ADD COLUMN traceparent TEXT;

-- Triggers that do what a PostgreSQL trigger does now carry its name: skiplock_dependency_finished
-- (one trigger for both ends of a dependency, as on PostgreSQL) and skiplock_job_deleted (events
-- and dependency rows). The status and progress event triggers have no PostgreSQL counterpart
-- (there the statements write their events, migration 0005) and take the same singular prefix.
DROP TRIGGER skiplock_dependency_succeeded;
DROP TRIGGER skiplock_dependency_failed;
DROP TRIGGER skiplock_jobs_deleted;
DROP TRIGGER skiplock_job_dependencies_deleted;
DROP TRIGGER skiplock_jobs_inserted;
DROP TRIGGER skiplock_jobs_status_changed;
DROP TRIGGER skiplock_jobs_progress_changed;

-- Created in the order the replaced triggers were (events first): SQLite runs triggers of one
-- event in an order of its own, and keeping the old order keeps the order of the events they write.
CREATE TRIGGER skiplock_job_inserted AFTER INSERT ON skiplock_jobs
BEGIN
    INSERT INTO skiplock_job_events (job_id, attempt, type, status)
    VALUES (NEW.id, NEW.attempt, 'status', NEW.status);
END;

CREATE TRIGGER skiplock_job_status_changed AFTER UPDATE OF status ON skiplock_jobs
WHEN NEW.status IS NOT OLD.status
BEGIN
    INSERT INTO skiplock_job_events (job_id, attempt, type, status, message)
    VALUES (NEW.id, NEW.attempt, 'status', NEW.status,
            CASE WHEN NEW.status <> 'running' AND NEW.last_error IS NOT OLD.last_error THEN NEW.last_error END);
END;

CREATE TRIGGER skiplock_job_progress_changed AFTER UPDATE OF progress ON skiplock_jobs
WHEN NEW.status IS OLD.status
BEGIN
    INSERT INTO skiplock_job_events (job_id, attempt, type, data)
    VALUES (NEW.id, NEW.attempt, 'progress', NEW.progress);
END;

-- Deleting a job (rm, retention) deletes its events and its own dependency rows (only those where
-- it is the dependent, so a waiting dependent keeps all of its rows) in the same transaction.
CREATE TRIGGER skiplock_job_deleted AFTER DELETE ON skiplock_jobs
BEGIN
    DELETE FROM skiplock_job_events WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_dependencies WHERE job_id = OLD.id;
END;

-- Failure cascades because the driver turns on recursive_triggers. The WHEN guard keeps the cost
-- for jobs without dependents (nearly all) at one index probe.
CREATE TRIGGER skiplock_dependency_finished AFTER UPDATE OF status ON skiplock_jobs
WHEN NEW.status IN ('succeeded', 'failed', 'timed_out', 'cancelled') AND OLD.status IS NOT NEW.status
     AND EXISTS (SELECT 1 FROM skiplock_job_dependencies WHERE depends_on = NEW.id)
BEGIN
    UPDATE skiplock_jobs
    SET status = 'queued', available_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
    WHERE NEW.status = 'succeeded'
      AND status = 'waiting'
      AND id IN (SELECT job_id FROM skiplock_job_dependencies WHERE depends_on = NEW.id)
      AND NOT EXISTS (SELECT 1 FROM skiplock_job_dependencies AS d
                      JOIN skiplock_jobs AS p ON p.id = d.depends_on
                      WHERE d.job_id = skiplock_jobs.id AND p.status <> 'succeeded');
    UPDATE skiplock_jobs
    SET status = 'failed', finished_at = CAST(unixepoch('subsec') * 1000 AS INTEGER),
        last_error = 'dependency ' || NEW.id || ' ' || NEW.status
    WHERE NEW.status <> 'succeeded'
      AND status = 'waiting'
      AND id IN (SELECT job_id FROM skiplock_job_dependencies WHERE depends_on = NEW.id);
END;
