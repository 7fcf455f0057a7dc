-- Large enqueue batches (BulkJobInserter): one transaction running bulk_clock and copy_jobs. COPY
-- parses and inserts 1,000 jobs in about half the database time of the JSON-fed insert_jobs
-- (measured: ~5.5 ms against ~10.5 ms), but has no RETURNING and no ON CONFLICT, so only batches
-- of plain queued jobs, without unique keys or dependencies, come here.

-- name: bulk_clock
-- The transaction's clock and one event seq per job (:jobs rows). now() is fixed for the whole
-- transaction, so it is exactly the requested_at (and available_at) an INSERT in this transaction
-- would write; each seq is a job's requested_seq, its first status event (migration 0012), as
-- insert_jobs draws it. No notification here: the client announces the queues after the commit
-- (PostgresNotifier's Announcer).
-- Ascending: the jobs take them in the batch's order, as insert_jobs' rows do. It also appends the
-- count deltas of the jobs copy_jobs then inserts (:counts, per tenant and queue; every job here is
-- queued): COPY fires no counting trigger since migration 0015, and both run in one transaction.
WITH counted AS (
    INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)
    SELECT c.tenant, c.queue, 'queued', c.jobs
    FROM jsonb_to_recordset(CAST(:counts AS jsonb)) AS c(tenant text, queue text, jobs bigint)
)
SELECT now() AS now, drawn.seq
FROM (SELECT nextval('skiplock_job_events_seq_seq') AS seq FROM generate_series(1, :jobs)) AS drawn
ORDER BY drawn.seq

-- name: copy_jobs
-- Every request column of JobColumns plus requested_at and requested_seq (BulkJobInserter checks
-- this list at start and derives each row from it); columns left out take their defaults (attempt
-- 0, no lease, no result).
COPY skiplock_jobs (id, tenant, queue, kind, args, metadata, traceparent, priority, status, max_attempts,
                    available_at, requested_at, timeout_seconds, unique_key, depends_on, last_error,
                    requested_seq) FROM STDIN
