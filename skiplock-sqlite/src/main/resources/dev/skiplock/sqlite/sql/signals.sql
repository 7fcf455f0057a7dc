-- name: lock_signal_target
-- The job a signal is sent to, this tenant's only (the IMMEDIATE transaction holds the write lock).
SELECT status, attempt, queue FROM skiplock_jobs
WHERE id = :job_id AND tenant = :tenant

-- name: insert_signal
-- The first delivery of a signal wins; a later one inserts nothing.
INSERT INTO skiplock_job_signals (job_id, name, payload)
VALUES (:job_id, :name, :payload)
ON CONFLICT (job_id, name) DO NOTHING

-- name: append_signal_event
-- The delivery as a step event of the job (status 'signalled').
INSERT INTO skiplock_job_events (job_id, attempt, type, step, status)
VALUES (:job_id, :attempt, 'step', :name, 'signalled')
RETURNING job_id

-- name: read_signal
-- The payload of a delivered signal, if any, unless it came after the job's wait for it had ended
-- (timed out): a wait replays as it ended, whatever comes later. A signal sent at the instant the
-- wait ended counts as after it: a wait of no time reads once it is written, and a signal it could
-- not see then must not count on a replay (SQLite's milliseconds can tie).
SELECT g.payload FROM skiplock_job_signals AS g
WHERE g.job_id = :job_id AND g.name = :name
  AND NOT EXISTS (SELECT 1 FROM skiplock_job_steps AS s
                  WHERE s.job_id = g.job_id AND s.name = g.name AND s.kind = 'signal' AND s.wake_at <= g.sent_at)

-- name: wake_for_signal
-- A queued job waiting for signal :name (a wait not yet over) that has been delivered runs now
-- instead of at the end of its wait. Run after a delivery, and in the transaction that writes a
-- wait for a signal (the signal may have come while the job still ran, with nothing to wake then).
UPDATE skiplock_jobs SET available_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
WHERE id = :job_id AND status = 'queued' AND available_at > CAST(unixepoch('subsec') * 1000 AS INTEGER)
  AND EXISTS (SELECT 1 FROM skiplock_job_steps AS s
              WHERE s.job_id = skiplock_jobs.id AND s.name = :name AND s.kind = 'signal'
                AND s.wake_at > CAST(unixepoch('subsec') * 1000 AS INTEGER))
  AND EXISTS (SELECT 1 FROM skiplock_job_signals AS g WHERE g.job_id = skiplock_jobs.id AND g.name = :name)
RETURNING queue
