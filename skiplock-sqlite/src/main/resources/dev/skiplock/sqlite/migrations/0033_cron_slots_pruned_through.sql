-- Per schedule, the latest slot whose marker retention pruned: a claim of a slot at or before it is
-- refused (see PostgreSQL's 0033).
CREATE TABLE skiplock_cron_pruned (
    tenant   TEXT    NOT NULL,
    schedule TEXT    NOT NULL,
    slot     INTEGER NOT NULL, -- the latest pruned slot, Unix milliseconds
    PRIMARY KEY (tenant, schedule)
);
