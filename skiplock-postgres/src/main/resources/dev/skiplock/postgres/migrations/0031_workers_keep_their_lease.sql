-- Each worker's registry row keeps its lease (lease_ms): whether a worker of a host is alive, for
-- adopting that host's command jobs (adopt_orphans), is judged by its own heartbeat and lease. It
-- was judged by the adopter's lease: a worker heartbeating every 45 s with a lease of 2 min looked
-- dead to a node with the default 30 s lease between its heartbeats, and that node adopted its
-- running command, found no run on its own host, and ran the job again while the command went on.
-- A row of an older process has none: the adopter's lease decides, as before.
ALTER TABLE skiplock_workers ADD COLUMN lease_ms bigint;
