-- A dependent one of whose dependencies is gone is not released when the others succeed (see
-- PostgreSQL's 0030): it waits, and settle_waiting_jobs fails it naming the dependency deleted.
-- The dependency trigger of 0027, with that one change; release_dependents (hot_path.sql) does the
-- same.
DROP TRIGGER skiplock_dependency_finished;

CREATE TRIGGER skiplock_dependency_finished AFTER UPDATE OF bookkept_by_trigger ON skiplock_jobs
WHEN NEW.status IN ('succeeded', 'failed', 'timed_out', 'cancelled') AND OLD.status IS NOT NEW.status
     AND EXISTS (SELECT 1 FROM skiplock_job_dependencies WHERE depends_on = NEW.id)
BEGIN
    UPDATE skiplock_jobs
    SET status = 'queued', available_at = max(available_at, CAST(unixepoch('subsec') * 1000 AS INTEGER)),
        bookkept_by_trigger = 1
    WHERE NEW.status = 'succeeded'
      AND status = 'waiting'
      AND id IN (SELECT job_id FROM skiplock_job_dependencies WHERE depends_on = NEW.id)
      AND NOT EXISTS (SELECT 1 FROM skiplock_job_dependencies AS d
                      LEFT JOIN skiplock_jobs AS p ON p.id = d.depends_on
                      WHERE d.job_id = skiplock_jobs.id AND (p.id IS NULL OR p.status <> 'succeeded'));
    UPDATE skiplock_jobs
    SET status = 'failed', finished_at = CAST(unixepoch('subsec') * 1000 AS INTEGER),
        last_error = 'dependency ' || NEW.id || ' ' || NEW.status, bookkept_by_trigger = 1
    WHERE NEW.status <> 'succeeded'
      AND status = 'waiting'
      AND id IN (SELECT job_id FROM skiplock_job_dependencies WHERE depends_on = NEW.id);
END;
