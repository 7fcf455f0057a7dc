-- Every claim and completion leaves a dead row version behind, and the claim index keeps pointing
-- at it until VACUUM: with a large history those dead entries sit at the front of
-- skiplock_jobs_claimable (oldest available_at first), and each claim walked past all of them
-- (measured: 25 ms per claim over 1,000,000 finished jobs before VACUUM, 0.5 ms after). The
-- defaults wait for 20 % of the table to be dead; a queue table wants VACUUM after 2 %, unthrottled.
ALTER TABLE skiplock_jobs SET (
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0.02,
    autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 0
);
