-- Per schedule, the latest slot whose marker retention pruned (cron.sql: prune_cron_slots records
-- it in the transaction that deletes the markers). A claim of a slot at or before it is refused
-- (claim_cron_slot, then cron_slot_pruned): without it, a slot whose marker was gone could be
-- enqueued again by a scheduler that came to it late (its clock a day behind, or stalled a day
-- between its check of the slot's lateness and its claim) or by a library caller. One row per
-- schedule that ever had a marker pruned, kept for good: a row gone would let the slots before it
-- run again.
CREATE TABLE skiplock_cron_pruned (
    tenant   text   NOT NULL,
    schedule text   NOT NULL,
    slot     bigint NOT NULL, -- the latest pruned slot, Unix milliseconds
    PRIMARY KEY (tenant, schedule)
);
