-- One row per slot of a periodic schedule that was enqueued (cron.sql: claim_cron_slot). The
-- primary key makes "this slot was enqueued" a fact that outlives the slot's job: live-job
-- uniqueness forgot a slot as soon as its job finished, so a scheduler whose timer or clock was a
-- little late enqueued it again. The full schedule name is stored (no key built and truncated from
-- it). Rows are never updated; they are pruned with the job history (prune_cron_slots).
-- Number 0007 (not 0006): migrations need unique, not contiguous, numbers.
CREATE TABLE skiplock_cron_slots (
    tenant     TEXT    NOT NULL,
    schedule   TEXT    NOT NULL,
    slot       INTEGER NOT NULL, -- the slot's fire time, Unix milliseconds
    job_id     TEXT    NOT NULL, -- the job enqueued for it (no foreign key: jobs are pruned or deleted first)
    created_at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)),
    PRIMARY KEY (tenant, schedule, slot)
);

-- Retention walks markers oldest first; one index insert per slot (not per job) is cheap.
CREATE INDEX skiplock_cron_slots_created ON skiplock_cron_slots (created_at);
