-- The job list filtered by a status jobs rarely end in (GET /api/v1/jobs?status=failed, the
-- dashboard's jobs page, which reloads its first page every 2 s) walked the whole history newest
-- first to find them: SQLite has no history index (a finished job would write one more entry on
-- the hot path, at each success). This index holds only the jobs that ended without success, so a
-- success writes nothing to it; list_jobs and list_jobs_all_tenants read it for those statuses
-- (300,000 finished jobs of which 27 failed: 90 ms a page, then under 2 ms). Failed, timed-out and
-- cancelled jobs are where an operator looks, and they stay few beside the successes.
CREATE INDEX skiplock_jobs_unsuccessful ON skiplock_jobs (status, id)
    WHERE status IN ('failed', 'timed_out', 'cancelled');
