-- Every tenant's counts (the depth gauges of every process every reaperInterval, an admin's GET
-- /queues and the dashboard's overview every 2 s, and a tenant's overview whose queues hold over a
-- thousand queued jobs each: OldestQueuedRead) summed all of skiplock_job_counts_folded, a row per
-- tenant, queue and status: 23-29 ms at 10,000 tenants of 3 queues (docs/PERFORMANCE.md). Now a row
-- per queue and status holds the folded sums of every tenant, and count_jobs_all_tenants reads it
-- with the deltas not folded yet.
-- Triggers keep it: whatever writes the folded sums (this version's fold, a fold of a process of
-- 0022's version, which knows nothing of this table, or SQL by hand with the schema on its
-- search_path, as the triggers resolve the table by it) moves its queue's and status's total by the
-- same amount in the same transaction, so a count that reads both in one snapshot is exact. A
-- TRUNCATE of the folded sums is not followed (no transition rows): truncate both.
-- Folds never write at once (the fold's advisory lock keeps them apart); each trigger upserts in
-- the key's order, but a statement that both inserts and updates sums (the fold's upsert) runs two
-- such passes, so two writers by hand, outside the fold's lock, could still deadlock. A group's row
-- stays at zero, as the folded sums' do. The fold's lock keeps folds out while this migrates;
-- creating the triggers waits for a writer of the folded sums that is still open, so the sums
-- copied below are every committed one (the migrator runs in READ COMMITTED: each statement sees
-- what committed before it) and every later write fires the triggers.
SELECT pg_advisory_xact_lock(hashtext('skiplock_job_counts:' || current_schema()));

CREATE TABLE skiplock_job_counts_all_tenants (
    queue  text   NOT NULL,
    status text   NOT NULL,
    jobs   bigint NOT NULL,
    PRIMARY KEY (queue, status)
);

CREATE FUNCTION skiplock_job_counts_folded_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO skiplock_job_counts_all_tenants AS totals (queue, status, jobs)
    SELECT queue, status, sum(jobs) FROM added_sums
    GROUP BY queue, status
    HAVING sum(jobs) <> 0
    ORDER BY queue, status
    ON CONFLICT (queue, status) DO UPDATE SET jobs = totals.jobs + excluded.jobs;
    RETURN NULL;
END
$$;

CREATE FUNCTION skiplock_job_counts_folded_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO skiplock_job_counts_all_tenants AS totals (queue, status, jobs)
    SELECT queue, status, sum(jobs) FROM (
        SELECT queue, status, jobs FROM added_sums
        UNION ALL
        SELECT queue, status, -jobs FROM removed_sums
    ) AS moved
    GROUP BY queue, status
    HAVING sum(jobs) <> 0
    ORDER BY queue, status
    ON CONFLICT (queue, status) DO UPDATE SET jobs = totals.jobs + excluded.jobs;
    RETURN NULL;
END
$$;

CREATE FUNCTION skiplock_job_counts_folded_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO skiplock_job_counts_all_tenants AS totals (queue, status, jobs)
    SELECT queue, status, -sum(jobs) FROM removed_sums
    GROUP BY queue, status
    HAVING sum(jobs) <> 0
    ORDER BY queue, status
    ON CONFLICT (queue, status) DO UPDATE SET jobs = totals.jobs + excluded.jobs;
    RETURN NULL;
END
$$;

CREATE TRIGGER skiplock_job_counts_folded_inserted AFTER INSERT ON skiplock_job_counts_folded
    REFERENCING NEW TABLE AS added_sums
    FOR EACH STATEMENT EXECUTE FUNCTION skiplock_job_counts_folded_inserted();
CREATE TRIGGER skiplock_job_counts_folded_updated AFTER UPDATE ON skiplock_job_counts_folded
    REFERENCING OLD TABLE AS removed_sums NEW TABLE AS added_sums
    FOR EACH STATEMENT EXECUTE FUNCTION skiplock_job_counts_folded_updated();
CREATE TRIGGER skiplock_job_counts_folded_deleted AFTER DELETE ON skiplock_job_counts_folded
    REFERENCING OLD TABLE AS removed_sums
    FOR EACH STATEMENT EXECUTE FUNCTION skiplock_job_counts_folded_deleted();

INSERT INTO skiplock_job_counts_all_tenants (queue, status, jobs)
SELECT queue, status, sum(jobs) FROM skiplock_job_counts_folded GROUP BY queue, status;
