-- Status events of the hot path are read from the job row instead of written as rows (issue #12:
-- an event row and its two index entries at enqueue, at claim and at success were the largest
-- write a no-op job made beside its own row). A statement that makes such an event draws its seq
-- from the events' sequence, so seq stays one global order across rows and derived events:
--   requested_seq  the job was enqueued queued (attempt 0, at requested_at);
--   started_seq    its latest attempt started running (that attempt, at started_at);
--   finished_seq   that attempt succeeded (at finished_at, no message).
-- A statement that changes what such an event reads (a new claim overwrites started_at and the
-- attempt; an unclaim takes the attempt back; a retry of a succeeded job clears finished_at) first
-- writes the event as a row with its seq, in the same statement, so every event is either derived
-- or a row, never both and never neither. Every other status event (waiting, failed, cancelled,
-- a retry's queued, ...) and every log, progress and step event is a row as before.
-- Processes older than this migration must be stopped before it runs (README "Upgrading"): their
-- statements would write these events as rows beside the derived ones. A role that runs Skiplock
-- without owning its objects now needs USAGE on skiplock_job_events_seq_seq (statements draw
-- from it by name, which an identity column's default did not need) and SELECT on the view.
ALTER TABLE skiplock_jobs ADD COLUMN requested_seq bigint,
                          ADD COLUMN started_seq bigint,
                          ADD COLUMN finished_seq bigint;

-- Every event of every job, as the API lists it: the rows and the events derived from job rows.
-- A condition on job_id reaches both halves (the job's events index and its primary key).
CREATE VIEW skiplock_job_event_log AS
SELECT e.seq, e.ts, e.job_id, e.attempt, e.type, e.status, e.step, e.stream, e.message, e.data
FROM skiplock_job_events AS e
UNION ALL
SELECT d.seq, d.ts, j.id, d.attempt, 'status', d.status, CAST(NULL AS text), CAST(NULL AS text),
       CAST(NULL AS text), CAST(NULL AS jsonb)
FROM skiplock_jobs AS j
CROSS JOIN LATERAL (VALUES (j.requested_seq, j.requested_at, 0, 'queued'),
                           (j.started_seq, j.started_at, j.attempt, 'running'),
                           (j.finished_seq, j.finished_at, j.attempt, 'succeeded')) AS d(seq, ts, attempt, status)
WHERE d.seq IS NOT NULL;
