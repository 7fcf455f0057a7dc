-- The job list filtered by a queue or a kind (GET /api/v1/jobs?queue=..., the dashboard's jobs
-- page, which reloads its first page every 2 s) walked every job of every tenant newest first to
-- find that queue's or kind's: a rare one among 300,000 finished jobs took 62 ms a page, 0.5 ms
-- by these (docs/PERFORMANCE.md). These indexes hold every job by queue and tenant, or kind and tenant, in
-- id order: list_jobs reads a queue's or a kind's jobs from them, newest first from the cursor. The
-- tenant comes second: led by it, SQLite took them for statements that test the tenant and look a
-- job up by its id (the dependencies' read, list_jobs of an older process), and read every job of
-- the tenant. An enqueue writes an entry to each; a claim, a heartbeat or a completion writes none
-- (SQLite updates only the indexes of the columns an UPDATE changes, and neither column ever
-- changes), so the drain's path is as it was. Retention's deletes remove their entries.
CREATE INDEX skiplock_jobs_by_queue ON skiplock_jobs (queue, tenant, id);
CREATE INDEX skiplock_jobs_by_kind ON skiplock_jobs (kind, tenant, id);
