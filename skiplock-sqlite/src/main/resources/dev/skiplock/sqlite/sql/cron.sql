-- name: bound_cron_slot_wait
-- Nothing to bound here: the claim's transaction waits for SQLite's write lock, which the pool's
-- busy timeout bounds (see PostgreSQL's statement of this name).
SELECT 1

-- name: claim_cron_slot
-- Takes one slot of a periodic schedule, in the transaction that enqueues its job; a row means the
-- slot was enqueued, for good. The transaction holds SQLite's write lock (BEGIN IMMEDIATE), so
-- claims of one slot run one after the other: the second finds the primary key taken, returns no
-- row, and its caller enqueues nothing, whether or not the slot's job has already finished.
INSERT INTO skiplock_cron_slots (tenant, schedule, slot, job_id)
VALUES (:tenant, :schedule, :slot, :job_id)
ON CONFLICT (tenant, schedule, slot) DO NOTHING
RETURNING slot

-- name: prune_cron_slots
-- Retention: deletes up to :limit slot markers recorded longer than :age_ms ago (database clock),
-- oldest first along skiplock_cron_slots_created. The caller never passes less than a day, so a
-- scheduler whose clock is behind cannot come to a slot after its marker is gone.
DELETE FROM skiplock_cron_slots
WHERE rowid IN (
    SELECT rowid FROM skiplock_cron_slots
    WHERE created_at < CAST(unixepoch('subsec') * 1000 AS INTEGER) - :age_ms
    ORDER BY created_at
    LIMIT :limit)
