-- Turns at reaper work that one process can do for all (issue #12). The settle's search
-- (find_settleable_jobs) reads every waiting job and its dependencies at every reaper run of every
-- worker process, mostly to find nothing: 113 ms at 100,000 waiting jobs, so with P processes P
-- times an interval (docs/PERFORMANCE.md). A process takes the search's turn only when no other
-- process took it within the caller's reaper interval (take_maintenance_turn), so the processes
-- sharing a schema search about once an interval between them; taken_by is the worker that took
-- it (SkiplockConfig.workerId), which may always take it again. Processes of an older build take no
-- turn and search every run, as before.
CREATE TABLE skiplock_maintenance_turns (
    task     text        PRIMARY KEY,
    taken_at timestamptz NOT NULL,
    taken_by text        NOT NULL
);
