-- Enqueues count their jobs in their own statements (insert_jobs; bulk_clock for a COPY batch)
-- instead of a statement trigger (issue #12): the trigger's PL/pgSQL call and transition table cost
-- a one-job insert about 50 microseconds of database time (pgbench, prepared, one client: 0.273 ms
-- per insert without it, 0.324 ms with it).
-- Only Skiplock's enqueue statements insert jobs, so the rule of 0011 holds as before: every
-- statement that inserts jobs appends the count deltas of what it inserted. Updates and deletes
-- keep their triggers (once per claim or completion batch, and they also see what the dependency
-- trigger changes). Processes older than this migration must be stopped before it runs (README
-- "Upgrading"): their enqueues would insert jobs nobody counts.
DROP TRIGGER skiplock_job_counted_inserted ON skiplock_jobs;
DROP FUNCTION skiplock_job_counted_inserted();
