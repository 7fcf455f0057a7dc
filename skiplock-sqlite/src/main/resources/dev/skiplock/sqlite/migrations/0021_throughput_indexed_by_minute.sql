-- skiplock_job_throughput (0011: finishes per tenant, queue and minute, kept for an hour) is keyed
-- by tenant first, so the reaper's compact_job_throughput, in every worker process every
-- reaperInterval and under the write lock, read every row to delete the hour-old minutes (1,001
-- tenants of 3 queues, 183,183 rows: 4 ms with nothing to delete). By minute, it reads only those.
-- queue_activity does not use it (see there). A row is written once per tenant, queue and minute,
-- then updated in place: the index costs one entry per row, nothing per finish.
CREATE INDEX skiplock_job_throughput_minute ON skiplock_job_throughput (minute);
