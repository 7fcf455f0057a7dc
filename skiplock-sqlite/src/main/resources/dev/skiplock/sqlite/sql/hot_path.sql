-- The hot path's writes that PostgreSQL's statements make in their own CTEs and SQLite's status
-- triggers make for every other change (migration 0017): run by the store in the transaction of
-- the claim or the completion they account for, never alone. Every "now" is the database clock in
-- milliseconds, as in jobs.sql. The store hands each statement only what it reads: :groups, a JSON
-- array of the changed jobs per tenant and queue ({tenant, queue, jobs}, one element per group, the
-- store counts them); :ids, a JSON array of job ids; :jobs, a JSON array of jobs (id, attempt and
-- at, the time of the change: a trigger's event carried the time of the statement that made the
-- change, and so do the events of the dependents a success releases). SQLite parses a JSON element
-- again for each field read from it: count_status_changes read from a hundred jobs' elements took
-- 0.4-0.5 ms more than from their group's, in a claim's or a success's transaction, under the
-- write lock.

-- name: pass_event_seqs
-- Moves the events' AUTOINCREMENT counter past the :count seqs that the claim or the success just
-- made gave its jobs' status events, which their rows carry (started_seq, finished_seq: migration
-- 0018): each is the counter as the statement read it plus the job's place. So every event row
-- inserted later gets a greater seq. Run only after a statement that changed a job, and before any
-- event row is inserted in its transaction (neither statement fires a trigger that inserts one).
-- No row: the counter is missing (migration 0018 writes it), and the store fails the transaction.
UPDATE sqlite_sequence SET seq = seq + :count WHERE name = 'skiplock_job_events'
RETURNING seq

-- name: complete_successes
-- complete_jobs for outcomes that succeeded without an error, an awaited signal or extra attempts
-- (the store sorts them out: JobStore's batch), naming only status: no status trigger fires.
-- last_error and available_at stay as they were, so the success's event has no message; it is
-- read from the row (migration 0018): finished_seq, the events' counter plus the outcome's place
-- in the batch (pass_event_seqs then moves the counter past the batch). :successes is a JSON array
-- of [id, token, result] (the store's CompletionParams.successes). Returns the leases applied with
-- what the bookkeeping reads.
UPDATE skiplock_jobs
SET status = 'succeeded',
    finished_at = CAST(unixepoch('subsec') * 1000 AS INTEGER),
    finished_seq = (SELECT seq FROM sqlite_sequence WHERE name = 'skiplock_job_events') + c.place,
    result = c.result,
    locked_by = NULL,
    locked_until = NULL
FROM (SELECT value ->> 0 AS id, value ->> 1 AS token, NULLIF(value -> 2, 'null') AS result, key + 1 AS place
      FROM json_each(:successes)) AS c
WHERE skiplock_jobs.id = c.id AND skiplock_jobs.lease_token = c.token AND skiplock_jobs.status = 'running'
RETURNING id, attempt, lease_token AS token, tenant, queue, finished_at AS at

-- name: insert_status_events
-- One status event per job, in the order given: what skiplock_job_status_changed writes (for the
-- dependents a success releases; the claim's and the success's own are read from their rows).
INSERT INTO skiplock_job_events (job_id, attempt, type, status, ts)
SELECT value ->> '$.id', value ->> '$.attempt', 'status', :status, value ->> '$.at' FROM json_each(:jobs)

-- name: count_status_changes
-- The jobs moved from :from_status to :to_status, per tenant and queue (:groups): what
-- skiplock_job_counted_updated adds up one job at a time. The rows exist since each group's first
-- job. A group given twice would be counted once (UPDATE ... FROM takes one row per target).
UPDATE skiplock_job_counts
SET jobs = skiplock_job_counts.jobs + CASE WHEN skiplock_job_counts.status = :to_status THEN c.moved ELSE -c.moved END
FROM (SELECT value ->> '$.tenant' AS tenant, value ->> '$.queue' AS queue, value ->> '$.jobs' AS moved
      FROM json_each(:groups)) AS c
WHERE skiplock_job_counts.tenant = c.tenant AND skiplock_job_counts.queue = c.queue
  AND skiplock_job_counts.status IN (:from_status, :to_status)

-- name: count_finishes
-- The jobs that finished, per tenant, queue (:groups) and minute: what skiplock_job_counted_finished
-- adds up. (WHERE true: SQLite's upsert after a SELECT needs a clause before ON CONFLICT.)
INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)
SELECT value ->> '$.tenant', value ->> '$.queue', unixepoch() / 60, value ->> '$.jobs'
FROM json_each(:groups) WHERE true
ON CONFLICT (tenant, queue, minute) DO UPDATE SET finished = finished + excluded.finished

-- name: release_dependents
-- Queues the waiting dependents of the jobs that succeeded (:ids) once all their dependencies
-- have: what skiplock_dependency_finished does for a success, at the successes' time (:at, their
-- finished_at), as that trigger did in their statement, keeping a runAt still to come (0027), and
-- reading each dependency's status as that trigger does (skiplock_dependency_states, 0030). Names
-- only status, so the store accounts for the jobs it returns (at: the time of the change, its
-- event's). A job without dependents costs one probe of skiplock_job_dependencies_on.
UPDATE skiplock_jobs
SET status = 'queued', available_at = max(available_at, :at)
WHERE status = 'waiting'
  AND id IN (SELECT job_id FROM skiplock_job_dependencies
             WHERE depends_on IN (SELECT value FROM json_each(:ids)))
  AND NOT EXISTS (SELECT 1 FROM skiplock_dependency_states AS d
                  WHERE d.job_id = skiplock_jobs.id AND d.status <> 'succeeded')
RETURNING id, attempt, tenant, queue, CAST(:at AS INTEGER) AS at
