-- name: list_events
-- One job's events after :after_seq, oldest first: its rows and those read from the job row, as in
-- the view skiplock_job_event_log (migration 0018), written out here. Through the view, SQLite
-- sorted all of the job's events after :after_seq before the limit (a job of 100,000 log lines:
-- 108 ms a page of 1,000, so paging through it read O(N^2/1,000) rows); as a compound select in seq
-- order, each part read along its index, it stops at the limit (1-2 ms). The tenant's test keeps
-- other tenants' jobs invisible; written "+j.tenant" so that SQLite finds the job by its id: by
-- skiplock_jobs_by_tenant (migration 0025) it sorted the events again.
SELECT seq, ts, job_id, attempt, type, status, step, stream, message, data FROM skiplock_job_events
WHERE job_id = :job_id AND seq > :after_seq
  AND EXISTS (SELECT 1 FROM skiplock_jobs AS j WHERE j.id = :job_id AND +j.tenant = :tenant)
UNION ALL
SELECT started_seq, started_at, id, attempt, 'status', 'running', NULL, NULL, NULL, NULL FROM skiplock_jobs
WHERE id = :job_id AND tenant = :tenant AND started_seq > :after_seq
UNION ALL
SELECT finished_seq, finished_at, id, attempt, 'status', 'succeeded', NULL, NULL, NULL, NULL FROM skiplock_jobs
WHERE id = :job_id AND tenant = :tenant AND finished_seq > :after_seq
ORDER BY seq
LIMIT :limit

-- name: append_logs
-- Log lines of running executions, many per statement. A line is written only while its
-- execution still holds the job's lease (its token): a line of an execution that was reaped,
-- adopted by another worker, or already finalized (a handler logging after its cancel) is
-- dropped, so no line lands after the terminal status, and after adoption only the adopter writes.
-- A line carries its place in its attempt's stream: one already stored (a batch written again
-- after a failure that left its outcome unknown) is skipped (migration 0014).
INSERT INTO skiplock_job_events (job_id, attempt, type, stream, message, line)
SELECT value ->> '$.job_id', value ->> '$.attempt', 'log', value ->> '$.stream', value ->> '$.message',
       value ->> '$.line'
FROM json_each(:lines)
WHERE EXISTS (SELECT 1 FROM skiplock_jobs AS j WHERE j.id = value ->> '$.job_id'
              AND j.lease_token = value ->> '$.token' AND j.status = 'running')
ORDER BY key -- seq must follow the order the lines were written
ON CONFLICT DO NOTHING
RETURNING seq

-- name: count_logs
-- How far one attempt's stream got: where an adopter resumes the output and numbers its lines on.
-- That is the place after the last recorded line, which is the count of lines unless one is
-- missing (a line the completer could not store at all): numbering on from the count would give
-- the adopter's first line the place of one already stored, and it would be skipped as a repeat.
-- Lines of a process older than migration 0014 have no place: then it is their count.
SELECT max(count(*), COALESCE(max(line) + 1, 0)) FROM skiplock_job_events
WHERE job_id = :job_id AND attempt = :attempt AND type = 'log' AND stream = :stream

-- name: update_progress
-- Fenced like every write of a running job; the trigger records the progress event.
UPDATE skiplock_jobs SET progress = :progress
WHERE id = :id AND lease_token = :token AND status = 'running'
