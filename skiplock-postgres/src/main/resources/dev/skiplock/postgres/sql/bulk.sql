-- Large enqueue batches (BulkJobInserter): one transaction running bulk_clock, copy_jobs and
-- copy_events. COPY parses and inserts 1,000 jobs in about half the database time of the
-- JSON-fed insert_jobs (measured: ~5.5 ms against ~10.5 ms), but has no RETURNING and no ON
-- CONFLICT, so only batches without unique keys or dependencies come here.

-- name: bulk_clock
-- The transaction's clock: now() is fixed for the whole transaction, so it is exactly the
-- requested_at (and available_at) an INSERT in this transaction would write. No notification here:
-- the client announces the queues after the commit (PostgresNotifier's Announcer).
SELECT now() AS now

-- name: copy_jobs
-- Every request column of JobColumns plus requested_at (BulkJobInserter checks this list at start
-- and derives each row from it); columns left out take their defaults (attempt 0, no lease, no result).
COPY skiplock_jobs (id, tenant, queue, kind, args, metadata, traceparent, priority, status, max_attempts,
                    available_at, requested_at, timeout_seconds, unique_key, depends_on, last_error) FROM STDIN

-- name: copy_events
-- Each job's first status event, as insert_jobs writes it.
COPY skiplock_job_events (job_id, attempt, type, status) FROM STDIN
