-- Every "now" below is CAST(unixepoch('subsec') * 1000 AS INTEGER): the database clock in
-- milliseconds, the same value throughout one statement.

-- name: insert_jobs
-- One statement for any number of jobs: the batch arrives as one JSON array. A live job with the
-- same unique key wins (DO NOTHING); the caller then reads it with find_live_by_unique_key.
-- "WHERE true" is SQLite's required disambiguation between SELECT and ON CONFLICT.
INSERT INTO skiplock_jobs (id, tenant, queue, kind, args, metadata, priority, status, max_attempts,
                           available_at, requested_at, finished_at, timeout_seconds, unique_key, last_error,
                           depends_on)
SELECT value ->> '$.id', value ->> '$.tenant', value ->> '$.queue', value ->> '$.kind',
       value -> '$.args', value -> '$.metadata', value ->> '$.priority', value ->> '$.status',
       value ->> '$.max_attempts',
       COALESCE(value ->> '$.run_at_ms', CAST(unixepoch('subsec') * 1000 AS INTEGER)),
       CAST(unixepoch('subsec') * 1000 AS INTEGER),
       CASE WHEN value ->> '$.status' = 'failed' THEN CAST(unixepoch('subsec') * 1000 AS INTEGER) END,
       value ->> '$.timeout_seconds', value ->> '$.unique_key', value ->> '$.last_error', value -> '$.depends_on'
FROM json_each(:jobs)
WHERE true
ON CONFLICT (tenant, unique_key) WHERE unique_key IS NOT NULL AND status IN ('waiting', 'queued', 'running')
DO NOTHING
-- Only what the client cannot know: it builds each Job from its own request plus these times.
RETURNING id, available_at, requested_at

-- name: find_live_by_unique_key
SELECT * FROM skiplock_jobs
WHERE tenant = :tenant AND unique_key = :unique_key AND status IN ('waiting', 'queued', 'running')

-- name: get_job
SELECT * FROM skiplock_jobs WHERE tenant = :tenant AND id = :id

-- name: list_jobs
-- Newest first; the cursor is the last id of the previous page. Filters that are NULL match all.
SELECT * FROM skiplock_jobs
WHERE tenant = :tenant
  AND (:status IS NULL OR status = :status)
  AND (:queue IS NULL OR queue = :queue)
  AND (:kind IS NULL OR kind = :kind)
  AND (:cursor IS NULL OR id < :cursor)
ORDER BY id DESC
LIMIT :limit

-- name: claim_jobs
-- One autocommit statement, so it runs under SQLite's single write lock: concurrent fetchers (any
-- process) queue on busy_timeout and never take the same row. The subquery walks
-- skiplock_jobs_claimable. The attempt is counted at claim.
UPDATE skiplock_jobs
SET status = 'running', attempt = attempt + 1, locked_by = :worker,
    locked_until = CAST(unixepoch('subsec') * 1000 AS INTEGER) + :lease_ms,
    started_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
WHERE id IN (
    SELECT id FROM skiplock_jobs
    WHERE status = 'queued' AND queue = :queue
      AND available_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER)
      AND NOT EXISTS (SELECT 1 FROM skiplock_queues AS q WHERE q.queue = :queue AND q.paused)
    ORDER BY priority DESC, available_at, id
    LIMIT :limit)
RETURNING *

-- name: adopt_orphans
-- Takes over running jobs whose lease the reaper cleared; the attempt is not changed (see the
-- PostgreSQL statement of the same name).
UPDATE skiplock_jobs
SET locked_by = :worker, locked_until = CAST(unixepoch('subsec') * 1000 AS INTEGER) + :lease_ms
WHERE id IN (
    SELECT id FROM skiplock_jobs
    WHERE status = 'running' AND queue = :queue AND locked_until IS NULL
    ORDER BY priority DESC, id
    LIMIT :limit)
RETURNING *

-- name: heartbeat
-- One statement per worker per interval. A held job missing from the answer has lost its lease.
UPDATE skiplock_jobs
SET locked_until = CAST(unixepoch('subsec') * 1000 AS INTEGER) + :lease_ms
FROM (SELECT value ->> '$.id' AS id, value ->> '$.attempt' AS attempt FROM json_each(:held)) AS h
WHERE skiplock_jobs.id = h.id AND skiplock_jobs.attempt = h.attempt
  AND skiplock_jobs.locked_by = :worker AND skiplock_jobs.status = 'running'
RETURNING id, attempt, cancel_requested

-- name: complete_jobs
-- Fenced finalize of many jobs in one statement: written only while this worker still holds that
-- attempt's lease. A retry of a job whose cancel was requested becomes cancelled instead.
UPDATE skiplock_jobs
SET status = CASE WHEN c.status = 'queued' AND skiplock_jobs.cancel_requested THEN 'cancelled'
                  ELSE c.status END,
    max_attempts = skiplock_jobs.max_attempts + c.extra_attempts,
    available_at = CASE WHEN c.status = 'queued'
                        THEN CAST(unixepoch('subsec') * 1000 AS INTEGER) + c.delay_ms
                        ELSE skiplock_jobs.available_at END,
    finished_at = CASE WHEN c.status = 'queued' AND NOT skiplock_jobs.cancel_requested THEN NULL
                       ELSE CAST(unixepoch('subsec') * 1000 AS INTEGER) END,
    result = c.result,
    last_error = COALESCE(c.error, skiplock_jobs.last_error),
    locked_by = NULL,
    locked_until = NULL
FROM (SELECT value ->> '$.id' AS id, value ->> '$.attempt' AS attempt, value ->> '$.status' AS status,
             value ->> '$.delay_ms' AS delay_ms, NULLIF(value -> '$.result', 'null') AS result,
             value ->> '$.error' AS error, value ->> '$.extra_attempts' AS extra_attempts
      FROM json_each(:completions)) AS c
WHERE skiplock_jobs.id = c.id AND skiplock_jobs.attempt = c.attempt
  AND skiplock_jobs.locked_by = :worker AND skiplock_jobs.status = 'running'
RETURNING id, attempt

-- name: release_jobs
-- Graceful shutdown gives back jobs still running at the deadline; attempt stays counted.
UPDATE skiplock_jobs
SET status = CASE WHEN skiplock_jobs.cancel_requested THEN 'cancelled' ELSE 'queued' END,
    finished_at = CASE WHEN skiplock_jobs.cancel_requested
                       THEN CAST(unixepoch('subsec') * 1000 AS INTEGER) ELSE NULL END,
    available_at = CAST(unixepoch('subsec') * 1000 AS INTEGER),
    max_attempts = MAX(skiplock_jobs.max_attempts, skiplock_jobs.attempt + 1),
    last_error = CASE WHEN skiplock_jobs.cancel_requested THEN skiplock_jobs.last_error
                      ELSE 'released at worker shutdown during attempt ' || skiplock_jobs.attempt END,
    locked_by = NULL,
    locked_until = NULL
FROM (SELECT value ->> '$.id' AS id, value ->> '$.attempt' AS attempt FROM json_each(:held)) AS h
WHERE skiplock_jobs.id = h.id AND skiplock_jobs.attempt = h.attempt
  AND skiplock_jobs.locked_by = :worker AND skiplock_jobs.status = 'running'
RETURNING id

-- name: reap_expired_leases
-- Clears the lease of running jobs whose owner stopped heartbeating; keeps status and attempt.
UPDATE skiplock_jobs
SET locked_by = NULL, locked_until = NULL
WHERE status = 'running' AND locked_until < CAST(unixepoch('subsec') * 1000 AS INTEGER)

-- name: cancel_job
-- Waiting or queued: cancelled at once. Running: only flagged; the owner writes the final status.
UPDATE skiplock_jobs
SET status = CASE WHEN status = 'running' THEN status ELSE 'cancelled' END,
    finished_at = CASE WHEN status = 'running' THEN finished_at
                       ELSE CAST(unixepoch('subsec') * 1000 AS INTEGER) END,
    cancel_requested = CASE WHEN status = 'running' THEN 1 ELSE cancel_requested END
WHERE tenant = :tenant AND id = :id AND status IN ('waiting', 'queued', 'running')
RETURNING *

-- name: retry_job
-- One more attempt for a terminal job; attempt keeps counting, max_attempts grows if used up.
UPDATE skiplock_jobs
SET status = 'queued', available_at = CAST(unixepoch('subsec') * 1000 AS INTEGER), finished_at = NULL,
    cancel_requested = 0, result = NULL, max_attempts = MAX(max_attempts, attempt + 1)
WHERE tenant = :tenant AND id = :id AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
RETURNING *

-- name: prune_finished
-- Retention: deletes up to :limit jobs finished longer than :age_ms ago, walking the primary key
-- from the oldest id (UUIDv7: enqueue order), where finished jobs gather. Bounded batches keep each write lock short.
DELETE FROM skiplock_jobs
WHERE id IN (
    SELECT id FROM skiplock_jobs
    WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled')
      AND finished_at < CAST(unixepoch('subsec') * 1000 AS INTEGER) - :age_ms
    ORDER BY id
    LIMIT :limit)

-- name: count_jobs
-- Jobs per queue and status of one tenant (dashboards, GET /queues, benchmarks' final check).
SELECT queue, status, count(*) AS jobs FROM skiplock_jobs WHERE tenant = :tenant GROUP BY queue, status

-- name: delete_job
-- Deletes a terminal job; its events go with it (trigger).
DELETE FROM skiplock_jobs
WHERE tenant = :tenant AND id = :id AND status IN ('succeeded', 'failed', 'timed_out', 'cancelled')

-- name: lock_dependencies
-- The dependencies of jobs being enqueued. The enqueue transaction (BEGIN IMMEDIATE) holds
-- SQLite's write lock, so no dependency can finish before the dependency rows are written.
SELECT id, status FROM skiplock_jobs
WHERE tenant = :tenant AND id IN (SELECT value FROM json_each(:ids))

-- name: insert_dependencies
INSERT INTO skiplock_job_dependencies (job_id, depends_on)
SELECT value ->> '$.job_id', value ->> '$.depends_on' FROM json_each(:edges)
