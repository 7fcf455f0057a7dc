-- skiplock_job_throughput (0011: finishes per tenant, queue and minute, kept for an hour) is keyed
-- by tenant first, so the reaper's compact_job_throughput, in every worker process every
-- reaperInterval and under the write lock, read every row to delete the hour-old minutes, and
-- queue_activity across tenants (an administrator's GET /api/v1/queues, every 2 s on the
-- dashboard) read the whole hour for its last 15 minutes. By minute, both read only the minutes
-- they need. A row is written once per tenant, queue and minute, then updated in place: the index
-- costs one entry per row, nothing per finish.
CREATE INDEX skiplock_job_throughput_minute ON skiplock_job_throughput (minute);
