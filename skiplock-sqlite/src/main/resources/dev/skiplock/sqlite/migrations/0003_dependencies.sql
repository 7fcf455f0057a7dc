-- Job dependencies (DESIGN §5): a job waits until every job it depends on succeeded; if one of
-- them fails, times out or is cancelled, it fails too, naming that dependency. Failure cascades
-- because the driver turns on recursive_triggers. The WHEN guard keeps the cost for jobs without
-- dependents (nearly all) at one index probe.
ALTER TABLE skiplock_jobs ADD COLUMN depends_on TEXT NOT NULL DEFAULT '[]';

CREATE TABLE skiplock_job_dependencies (
    job_id     TEXT NOT NULL,
    depends_on TEXT NOT NULL,
    PRIMARY KEY (job_id, depends_on)
) WITHOUT ROWID;

CREATE INDEX skiplock_job_dependencies_on ON skiplock_job_dependencies (depends_on);

CREATE TRIGGER skiplock_dependency_succeeded AFTER UPDATE OF status ON skiplock_jobs
WHEN NEW.status = 'succeeded' AND OLD.status IS NOT NEW.status
     AND EXISTS (SELECT 1 FROM skiplock_job_dependencies WHERE depends_on = NEW.id)
BEGIN
    UPDATE skiplock_jobs
    SET status = 'queued', available_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
    WHERE status = 'waiting'
      AND id IN (SELECT job_id FROM skiplock_job_dependencies WHERE depends_on = NEW.id)
      AND NOT EXISTS (SELECT 1 FROM skiplock_job_dependencies AS d
                      JOIN skiplock_jobs AS p ON p.id = d.depends_on
                      WHERE d.job_id = skiplock_jobs.id AND p.status <> 'succeeded');
END;

CREATE TRIGGER skiplock_dependency_failed AFTER UPDATE OF status ON skiplock_jobs
WHEN NEW.status IN ('failed', 'timed_out', 'cancelled') AND OLD.status IS NOT NEW.status
     AND EXISTS (SELECT 1 FROM skiplock_job_dependencies WHERE depends_on = NEW.id)
BEGIN
    UPDATE skiplock_jobs
    SET status = 'failed', finished_at = CAST(unixepoch('subsec') * 1000 AS INTEGER),
        last_error = 'dependency ' || NEW.id || ' ' || NEW.status
    WHERE status = 'waiting'
      AND id IN (SELECT job_id FROM skiplock_job_dependencies WHERE depends_on = NEW.id);
END;
