-- name: bound_cron_slot_wait
-- Before claim_cron_slot, in its transaction: a claim of the same slot by another scheduler holds
-- its marker only while that enqueue commits, so a longer wait means that scheduler stopped
-- mid-transaction (a paused process, a half-open connection, open for hours). Without a bound, every
-- scheduler's one cron thread waited there, and with it every schedule it runs; past the bound
-- the claim fails, and that slot is tried again the next second while the other schedules go on.
SELECT set_config('lock_timeout', '2s', true)

-- name: claim_cron_slot
-- Takes one slot of a periodic schedule, in the transaction that enqueues its job; a row means the
-- slot was enqueued, for good. ON CONFLICT DO NOTHING on the primary key waits for a concurrent
-- claim of the same slot: if that one commits, this returns no row (the caller enqueues nothing);
-- if it rolls back, this one inserts. So two schedulers never both enqueue a slot, whenever their
-- timers fire and whether or not the slot's job has already finished.
-- Once the slot's marker is pruned, cron_slot_pruned refuses it.
INSERT INTO skiplock_cron_slots (tenant, schedule, slot, job_id)
VALUES (:tenant, :schedule, :slot, :job_id)
ON CONFLICT (tenant, schedule, slot) DO NOTHING
RETURNING slot

-- name: cron_slot_pruned
-- After claim_cron_slot took the slot, in its transaction: a row when retention pruned the marker
-- of this slot or of a later one of the schedule (the caller then rolls the claim back and enqueues
-- nothing: the slot may have run). A statement of its own, after the claim, for READ COMMITTED: a
-- claim that met a prune's uncommitted delete of this slot's marker waited for that prune to commit,
-- and this statement's snapshot, taken after, sees what the prune recorded. Checked before the
-- claim, or inside its statement, it read a snapshot from before the prune, and the slot ran twice.
SELECT 1 FROM skiplock_cron_pruned WHERE tenant = :tenant AND schedule = :schedule AND slot >= :slot

-- name: prune_cron_slots
-- Retention: deletes up to :limit slot markers recorded longer than :age_ms ago (database clock)
-- whose slot is that old too, oldest first along skiplock_cron_slots_created, and returns them; in
-- the same transaction the caller records each schedule's latest pruned slot
-- (record_pruned_cron_slot). The caller never passes less than a day, so a scheduler that fires
-- only slots due within the minute by its clock comes to a pruned slot only when its clock is a
-- day behind, or it stalled that long. A slot recorded ahead of its time (enqueueScheduled of a
-- slot to come) waits for its time: pruned, it would refuse the schedule's slots before it.
DELETE FROM skiplock_cron_slots
WHERE (tenant, schedule, slot) IN (
    SELECT tenant, schedule, slot FROM skiplock_cron_slots
    WHERE created_at < now() - :age_ms * interval '1 millisecond'
      AND slot < (extract(epoch FROM now()) * 1000)::bigint - :age_ms
    ORDER BY created_at
    LIMIT :limit)
RETURNING tenant, schedule, slot

-- name: record_pruned_cron_slot
-- In prune_cron_slots' transaction, once per schedule, in (tenant, schedule) order (two prunes take
-- these rows' locks in one order): the schedule's latest pruned slot, never moved back.
INSERT INTO skiplock_cron_pruned (tenant, schedule, slot)
VALUES (:tenant, :schedule, :slot)
ON CONFLICT (tenant, schedule) DO UPDATE SET slot = greatest(skiplock_cron_pruned.slot, excluded.slot)
