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
INSERT INTO skiplock_cron_slots (tenant, schedule, slot, job_id)
VALUES (:tenant, :schedule, :slot, :job_id)
ON CONFLICT (tenant, schedule, slot) DO NOTHING
RETURNING slot

-- name: prune_cron_slots
-- Retention: deletes up to :limit slot markers recorded longer than :age_ms ago (database clock),
-- oldest first along skiplock_cron_slots_created. The caller never passes less than a day, so a
-- scheduler whose clock is behind cannot come to a slot after its marker is gone.
DELETE FROM skiplock_cron_slots
WHERE (tenant, schedule, slot) IN (
    SELECT tenant, schedule, slot FROM skiplock_cron_slots
    WHERE created_at < now() - :age_ms * interval '1 millisecond'
    ORDER BY created_at
    LIMIT :limit)
