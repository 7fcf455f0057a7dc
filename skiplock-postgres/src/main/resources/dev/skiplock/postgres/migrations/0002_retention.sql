-- Retention deletes finished jobs oldest first without scanning the live ones.
CREATE INDEX skiplock_jobs_finished ON skiplock_jobs (finished_at)
    WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled');
