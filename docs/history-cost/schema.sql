-- The prototype of docs/PERFORMANCE.md "Which design would close it": what a drained job costs
-- PostgreSQL with Skiplock's index set (table cj) and with a lease design (table pj), without
-- the real schema's triggers, events and counts. run.sh loads this file into a scratch database
-- (for the variant without lease rows, with their two CTEs taken out of the text) and then drops
-- or replaces the parts its variant names.
CREATE SEQUENCE evseq;
CREATE TABLE cj (
    id uuid PRIMARY KEY, tenant text NOT NULL, queue text NOT NULL, kind text NOT NULL, args jsonb NOT NULL,
    metadata jsonb NOT NULL, priority integer NOT NULL, status text NOT NULL, attempt integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL, available_at timestamptz NOT NULL, requested_at timestamptz NOT NULL,
    started_at timestamptz, finished_at timestamptz, timeout_seconds integer, unique_key text,
    cancel_requested boolean NOT NULL DEFAULT false, result jsonb, last_error text, locked_by text,
    locked_until timestamptz, progress jsonb, depends_on jsonb NOT NULL, lease_token uuid, claim_token uuid,
    host text, traceparent text, requested_seq bigint, started_seq bigint, finished_seq bigint);
-- Skiplock's index set (migrations 0001, 0006, 0011): the status in every predicate.
CREATE INDEX cj_claimable ON cj (queue, priority DESC, available_at, id) WHERE status = 'queued';
CREATE INDEX cj_running ON cj (queue, locked_until) WHERE status = 'running';
CREATE UNIQUE INDEX cj_unique_live ON cj (tenant, unique_key)
    WHERE unique_key IS NOT NULL AND status IN ('waiting', 'queued', 'running');
CREATE INDEX cj_waiting ON cj (id) WHERE status = 'waiting';
CREATE INDEX cj_history_queue ON cj (tenant, queue, id) WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled');
CREATE INDEX cj_history_kind ON cj (tenant, kind, id) WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled');
CREATE INDEX cj_history_status ON cj (tenant, status, id) WHERE status IN ('succeeded', 'failed', 'timed_out', 'cancelled');

-- The history kept apart (variant history-moves): the finish moves the row here; only its primary
-- key is kept per row, the job list's indexes are built once the table is closed.
CREATE TABLE ch (LIKE cj INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE ch ADD PRIMARY KEY (id);

-- The lease design: no index names a column that a success changes, so a success can be a HOT
-- update. The claim clears claimable and sets started_seq (which enters the history indexes);
-- a failure would set unsuccessful; the leases live in pl.
CREATE TABLE pj (LIKE cj INCLUDING DEFAULTS INCLUDING CONSTRAINTS, claimable boolean NOT NULL DEFAULT true,
    unsuccessful boolean);
ALTER TABLE pj ADD PRIMARY KEY (id);
CREATE TABLE pl (job_id uuid PRIMARY KEY, queue text NOT NULL, locked_until timestamptz NOT NULL);
CREATE INDEX pj_claimable ON pj (queue, priority DESC, available_at, id) WHERE claimable;
CREATE UNIQUE INDEX pj_unique_live ON pj (tenant, unique_key) WHERE unique_key IS NOT NULL AND unsuccessful IS NULL;
CREATE INDEX pj_history_queue ON pj (tenant, queue, id) WHERE started_seq IS NOT NULL;
CREATE INDEX pj_history_kind ON pj (tenant, kind, id) WHERE started_seq IS NOT NULL;
CREATE INDEX pj_unsuccessful ON pj (tenant, id) WHERE unsuccessful;
CREATE INDEX pl_expiry ON pl (queue, locked_until);

CREATE FUNCTION seed(n integer) RETURNS void LANGUAGE sql AS $$
    INSERT INTO cj (id, tenant, queue, kind, args, metadata, priority, status, max_attempts, available_at,
                    requested_at, depends_on, requested_seq)
    SELECT gen_random_uuid(), 'default', 'default', 'bench.noop', jsonb_build_object('i', g), '{}', 0, 'queued', 5,
           now() + g * interval '1 microsecond', now(), '[]', nextval('evseq') FROM generate_series(1, n) AS g;
    INSERT INTO pj (id, tenant, queue, kind, args, metadata, priority, status, max_attempts, available_at,
                    requested_at, depends_on, requested_seq)
    SELECT id, tenant, queue, kind, args, metadata, priority, status, max_attempts, available_at, requested_at,
           depends_on, requested_seq FROM cj;
$$;

-- A claim of 100 as skiplock_claim_jobs makes it: the rows locked in claim order, then updated
-- through the primary key. Returns the claimed ids.
CREATE FUNCTION claim_cj() RETURNS uuid[] LANGUAGE plpgsql AS $$
DECLARE ids uuid[]; token uuid := gen_random_uuid();
BEGIN
    WITH next AS (SELECT id FROM cj WHERE status = 'queued' AND queue = 'default' AND available_at <= now() + interval '1 hour'
                  ORDER BY priority DESC, available_at, id LIMIT 100 FOR UPDATE SKIP LOCKED),
    claimed AS (UPDATE cj SET status = 'running', attempt = attempt + 1, locked_by = 'w',
                       locked_until = now() + interval '30 s', started_at = now(), started_seq = nextval('evseq'),
                       lease_token = token, claim_token = token
                WHERE id = ANY (ARRAY(SELECT id FROM next)) RETURNING id)
    SELECT array_agg(id ORDER BY id) INTO ids FROM claimed;
    RETURN ids;
END $$;

CREATE FUNCTION claim_pj() RETURNS uuid[] LANGUAGE plpgsql AS $$
DECLARE ids uuid[]; token uuid := gen_random_uuid();
BEGIN
    WITH next AS (SELECT id FROM pj WHERE claimable AND queue = 'default' AND available_at <= now() + interval '1 hour'
                  ORDER BY priority DESC, available_at, id LIMIT 100 FOR UPDATE SKIP LOCKED),
    claimed AS (UPDATE pj SET claimable = false, status = 'running', attempt = attempt + 1, locked_by = 'w',
                       locked_until = now() + interval '30 s', started_at = now(), started_seq = nextval('evseq'),
                       lease_token = token, claim_token = token
                WHERE id = ANY (ARRAY(SELECT id FROM next)) RETURNING id, queue, locked_until),
    leased AS (INSERT INTO pl SELECT id, queue, locked_until FROM claimed)
    SELECT array_agg(id ORDER BY id) INTO ids FROM claimed;
    RETURN ids;
END $$;

-- The success of each claimed job as complete_jobs writes it: each row locked through the
-- primary key in id order while it holds the claim's token, then updated.
CREATE FUNCTION finish_cj(ids uuid[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
    WITH locked AS (SELECT j.id FROM unnest(ids) AS c(id) CROSS JOIN LATERAL
                      (SELECT j.id FROM cj AS j WHERE j.id = c.id AND j.lease_token = j.claim_token FOR UPDATE) AS j),
    done AS (UPDATE cj SET status = 'succeeded', finished_at = now(), finished_seq = nextval('evseq'), locked_by = NULL,
                    locked_until = NULL, lease_token = NULL, result = NULL
             FROM locked WHERE cj.id = locked.id AND cj.status = 'running' RETURNING cj.id)
    SELECT count(*) INTO n FROM done;
    RETURN n;
END $$;

CREATE FUNCTION finish_pj(ids uuid[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
    WITH locked AS (SELECT j.id FROM unnest(ids) AS c(id) CROSS JOIN LATERAL
                      (SELECT j.id FROM pj AS j WHERE j.id = c.id AND j.lease_token = j.claim_token FOR UPDATE) AS j),
    done AS (UPDATE pj SET status = 'succeeded', finished_at = now(), finished_seq = nextval('evseq'), locked_by = NULL,
                    locked_until = NULL, lease_token = NULL, result = NULL
             FROM locked WHERE pj.id = locked.id AND pj.status = 'running' RETURNING pj.id),
    released AS (DELETE FROM pl WHERE job_id IN (SELECT id FROM done))
    SELECT count(*) INTO n FROM done;
    RETURN n;
END $$;
