-- Each worker's registry row keeps its lease (see PostgreSQL's 0031): a host's worker is alive
-- for adoption by its own heartbeat and lease, not the adopter's.
ALTER TABLE skiplock_workers ADD COLUMN lease_ms INTEGER;
