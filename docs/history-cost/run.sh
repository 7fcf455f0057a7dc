#!/usr/bin/env bash
# Prices a drained job in PostgreSQL for one design of docs/PERFORMANCE.md's prototype:
#   run.sh VARIANT [FILLFACTOR]     (PGHOST, PGUSER as for psql; drops and creates database history_cost)
# VARIANT: skiplock-indexes | no-history-indexes | finish-deletes | history-moves | history-moves-unkeyed | lease-design | lease-design-no-leases
# Drains 100,000 jobs by 1,000 claims of 100 and their successes (pgbench, one client, each statement
# its own transaction, synchronous_commit off) and prints, per job, the CPU of the cluster's
# postmaster and its children (with the reaped ones, from /proc: run it on the cluster's host) and
# the WAL written (with the full-page images that follow the checkpoint before the drain), and how
# many updates were HOT. The history-moves variants then build the job list's three indexes over
# the table the finish moved the jobs to, and print what that cost a job.
set -euo pipefail
variant=${1:?variant}; fillfactor=${2:-100}
bin=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
export PGDATABASE=history_cost
here=$(cd "$(dirname "$0")" && pwd)
case $variant in
  skiplock-indexes) table=cj; change="" ;;
  no-history-indexes) table=cj; change="DROP INDEX cj_history_queue, cj_history_kind, cj_history_status;" ;;
  finish-deletes) table=cj; change="CREATE OR REPLACE FUNCTION finish_cj(ids uuid[]) RETURNS integer LANGUAGE sql AS
      \$\$ WITH locked AS (SELECT j.id FROM unnest(ids) AS c(id) CROSS JOIN LATERAL
                            (SELECT j.id FROM cj AS j WHERE j.id = c.id AND j.lease_token = j.claim_token FOR UPDATE) AS j),
              done AS (DELETE FROM cj USING locked WHERE cj.id = locked.id AND cj.status = 'running' RETURNING cj.id)
         SELECT count(*)::integer FROM done \$\$;" ;;
  history-moves|history-moves-unkeyed) table=cj; change="DROP INDEX cj_history_queue, cj_history_kind, cj_history_status;
      CREATE OR REPLACE FUNCTION finish_cj(ids uuid[]) RETURNS integer LANGUAGE sql AS
      \$\$ WITH locked AS (SELECT j.id FROM unnest(ids) AS c(id) CROSS JOIN LATERAL
                            (SELECT j.id FROM cj AS j WHERE j.id = c.id AND j.lease_token = j.claim_token FOR UPDATE) AS j),
              done AS (DELETE FROM cj USING locked WHERE cj.id = locked.id AND cj.status = 'running' RETURNING cj.*),
              kept AS (INSERT INTO ch SELECT id, tenant, queue, kind, args, metadata, priority, 'succeeded', attempt,
                                             max_attempts, available_at, requested_at, started_at, now(), timeout_seconds,
                                             unique_key, cancel_requested, NULL, last_error, NULL, NULL, progress,
                                             depends_on, NULL, claim_token, host, traceparent, requested_seq, started_seq,
                                             nextval('evseq') FROM done RETURNING id)
         SELECT count(*)::integer FROM kept \$\$;"
    if [ "$variant" = history-moves-unkeyed ]; then change="$change ALTER TABLE ch DROP CONSTRAINT ch_pkey;"; fi ;;
  lease-design) table=pj; change="" ;;
  lease-design-no-leases) table=pj; change="" ;;
  *) echo "unknown variant $variant" >&2; exit 2 ;;
esac
# The cluster's postmaster: its CPU and its children's, with the reaped ones (cutime, cstime)
postmaster=$(head -1 "$(psql -Atc 'SHOW data_directory' -d postgres)/postmaster.pid")
cpu() {
  python3 - "$postmaster" <<'PY'
import os, sys
postmaster, total = sys.argv[1], 0
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        continue
    fields = stat[stat.rindex(")") + 2:].split()
    if pid == postmaster or fields[1] == postmaster:  # fields[1]: the parent's pid
        total += sum(int(x) for x in fields[11:15])
print(total / os.sysconf("SC_CLK_TCK"))
PY
}
psql -q -d postgres -c "DROP DATABASE IF EXISTS history_cost" -c "CREATE DATABASE history_cost"
schema=$(cat "$here/schema.sql")
if [ "$variant" = lease-design-no-leases ]; then # the claim and the success without their lease rows
  schema=$(perl -0pe 's/,\n    leased AS \(INSERT INTO pl[^\n]*\)//; s/,\n    released AS \(DELETE FROM pl[^\n]*\)//' <<<"$schema")
  if grep -Eq 'INTO pl|FROM pl' <<<"$schema"; then echo "schema.sql changed: the lease CTEs were not taken out" >&2; exit 1; fi
fi
psql -q -v ON_ERROR_STOP=1 <<<"$schema"
psql -q -v ON_ERROR_STOP=1 -c "$change SELECT 1" >/dev/null
psql -q -v ON_ERROR_STOP=1 -c "ALTER TABLE $table SET (fillfactor = $fillfactor)" -c "SELECT seed(100000)" \
     -c "VACUUM ANALYZE cj" -c "VACUUM ANALYZE pj" -c "CHECKPOINT" >/dev/null
script=$(mktemp); trap 'rm -f "$script"' EXIT
printf 'SELECT claim_%s() AS ids \\gset\nSELECT finish_%s(CAST(:ids AS uuid[]));\n' "$table" "$table" > "$script"
wal0=$(psql -Atc "SELECT pg_current_wal_lsn()"); cpu0=$(cpu)
PGOPTIONS='-c synchronous_commit=off' "$bin/pgbench" -n -M prepared -c 1 -t 1000 -f "$script" >/dev/null
cpu1=$(cpu); wal1=$(psql -Atc "SELECT pg_current_wal_lsn()")
psql -At -c "SELECT '$variant fillfactor=$fillfactor: ' || round(($cpu1 - $cpu0) * 1e6 / 100000) || ' us of CPU and '
                 || round(pg_wal_lsn_diff('$wal1', '$wal0') / 100000) || ' B of WAL a job; left unfinished '
                 || (SELECT count(*) FROM $table WHERE status <> 'succeeded') || '; HOT updates '
                 || n_tup_hot_upd || ' of ' || n_tup_upd || ' (claims and successes)'
            FROM pg_stat_user_tables WHERE relname = '$table'"
if [ "$variant" != "${variant#history-moves}" ]; then # the job list's indexes, built once over the closed history
  cpu1=$(cpu); wal1=$(psql -Atc "SELECT pg_current_wal_lsn()")
  psql -q -v ON_ERROR_STOP=1 -c "CREATE INDEX ch_queue ON ch (tenant, queue, id)" \
       -c "CREATE INDEX ch_kind ON ch (tenant, kind, id)" -c "CREATE INDEX ch_status ON ch (tenant, status, id)"
  cpu2=$(cpu); wal2=$(psql -Atc "SELECT pg_current_wal_lsn()")
  echo "$variant: building the three history indexes over the $(psql -Atc "SELECT count(*) FROM ch") moved jobs took" \
       "$(python3 -c "print(round(($cpu2 - $cpu1) * 1e6 / 100000, 1))") us of CPU and" \
       "$(psql -Atc "SELECT round(pg_wal_lsn_diff('$wal2', '$wal1') / 100000)") B of WAL a job (not in the line above)"
fi
