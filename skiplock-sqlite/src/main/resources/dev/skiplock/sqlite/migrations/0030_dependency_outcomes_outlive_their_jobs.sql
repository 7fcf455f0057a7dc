-- A dependency's outcome outlives its row (see PostgreSQL's 0030): deleting a job records its
-- status on the dependency rows that name it, and every reader of a dependency's status reads it
-- through skiplock_dependency_states ('deleted' when the row went before the dependent's enqueue
-- committed; the enqueue records what it read of a dependency that had ended). Only an ended job's
-- status is recorded. Rows naming a job deleted before this migration read as succeeded, as until now.
ALTER TABLE skiplock_job_dependencies ADD COLUMN outcome TEXT;

UPDATE skiplock_job_dependencies SET outcome = 'succeeded'
WHERE NOT EXISTS (SELECT 1 FROM skiplock_jobs AS p WHERE p.id = skiplock_job_dependencies.depends_on);

CREATE VIEW skiplock_dependency_states AS
SELECT d.job_id, d.depends_on, coalesce(p.status, d.outcome, 'deleted') AS status
FROM skiplock_job_dependencies AS d
LEFT JOIN skiplock_jobs AS p ON p.id = d.depends_on;

DROP TRIGGER skiplock_job_deleted;

CREATE TRIGGER skiplock_job_deleted AFTER DELETE ON skiplock_jobs
BEGIN
    DELETE FROM skiplock_job_events WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_dependencies WHERE job_id = OLD.id;
    UPDATE skiplock_job_dependencies
    SET outcome = CASE WHEN OLD.status IN ('succeeded', 'failed', 'timed_out', 'cancelled') THEN OLD.status END
    WHERE depends_on = OLD.id;
    DELETE FROM skiplock_job_steps WHERE job_id = OLD.id;
    DELETE FROM skiplock_job_signals WHERE job_id = OLD.id;
END;

-- The dependency trigger of 0027, reading its dependents' dependencies through the view;
-- release_dependents (hot_path.sql) does the same.
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
      AND NOT EXISTS (SELECT 1 FROM skiplock_dependency_states AS d
                      WHERE d.job_id = skiplock_jobs.id AND d.status <> 'succeeded');
    UPDATE skiplock_jobs
    SET status = 'failed', finished_at = CAST(unixepoch('subsec') * 1000 AS INTEGER),
        last_error = 'dependency ' || NEW.id || ' ' || NEW.status, bookkept_by_trigger = 1
    WHERE NEW.status <> 'succeeded'
      AND status = 'waiting'
      AND id IN (SELECT job_id FROM skiplock_job_dependencies WHERE depends_on = NEW.id);
END;
