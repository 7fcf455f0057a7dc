-- name: list_events
-- One job's events after :after_seq, oldest first (rows and those read from the job row: migration
-- 0018); the join keeps other tenants' jobs invisible.
SELECT e.seq, e.ts, e.job_id, e.attempt, e.type, e.status, e.step, e.stream, e.message, e.data
FROM skiplock_job_event_log AS e
JOIN skiplock_jobs AS j ON j.id = e.job_id
WHERE j.tenant = :tenant AND e.job_id = :job_id AND e.seq > :after_seq
ORDER BY e.seq
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
