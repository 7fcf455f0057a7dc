-- name: bound_cron_slot_wait
-- Nothing to bound here: the claim's transaction waits for SQLite's write lock, which the pool's
-- busy timeout bounds (see PostgreSQL's statement of this name).
SELECT 1

-- name: claim_cron_slot
-- Takes one slot of a periodic schedule, in the transaction that enqueues its job; a row means the
-- slot was enqueued, for good. The transaction holds SQLite's write lock (BEGIN IMMEDIATE), so
-- claims of one slot run one after the other: the second finds the primary key taken, returns no
-- row, and its caller enqueues nothing, whether or not the slot's job has already finished.
-- Once the slot's marker is pruned, cron_slot_pruned refuses it.
INSERT INTO skiplock_cron_slots (tenant, schedule, slot, job_id)
VALUES (:tenant, :schedule, :slot, :job_id)
ON CONFLICT (tenant, schedule, slot) DO NOTHING
RETURNING slot

-- name: cron_slot_pruned
-- After claim_cron_slot took the slot, in its transaction: a row when retention pruned the marker
-- of this slot or of a later one of the schedule (the caller then rolls the claim back and enqueues
-- nothing: the slot may have run). See PostgreSQL's statement of this name for why it comes after.
SELECT 1 FROM skiplock_cron_pruned WHERE tenant = :tenant AND schedule = :schedule AND slot >= :slot

-- name: prune_cron_slots
-- Retention: deletes up to :limit slot markers recorded longer than :age_ms ago (database clock)
-- whose slot is that old too, oldest first along skiplock_cron_slots_created, and returns them; in
-- the same transaction the caller records each schedule's latest pruned slot
-- (record_pruned_cron_slot). See PostgreSQL's statement of this name.
DELETE FROM skiplock_cron_slots
WHERE rowid IN (
    SELECT rowid FROM skiplock_cron_slots
    WHERE created_at < CAST(unixepoch('subsec') * 1000 AS INTEGER) - :age_ms
      AND slot < CAST(unixepoch('subsec') * 1000 AS INTEGER) - :age_ms
    ORDER BY created_at
    LIMIT :limit)
RETURNING tenant, schedule, slot

-- name: record_pruned_cron_slot
-- In prune_cron_slots' transaction, once per schedule: the schedule's latest pruned slot, never
-- moved back.
INSERT INTO skiplock_cron_pruned (tenant, schedule, slot)
VALUES (:tenant, :schedule, :slot)
ON CONFLICT (tenant, schedule) DO UPDATE SET slot = max(skiplock_cron_pruned.slot, excluded.slot)
