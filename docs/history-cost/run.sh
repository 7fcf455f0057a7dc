#!/usr/bin/env bash
# Prices a drained job in PostgreSQL for one design of docs/PERFORMANCE.md's prototype:
#   run.sh VARIANT [FILLFACTOR]     (PGHOST, PGUSER as for psql; drops and creates database history_cost)
# VARIANT: skiplock-indexes | no-history-indexes | finish-deletes | lease-design | lease-design-no-leases
# Drains 100,000 jobs by 1,000 claims of 100 and their successes (pgbench, one client, each statement
# its own transaction, synchronous_commit off) and prints PostgreSQL's CPU (every postgres process,
# with its reaped children, from /proc) and WAL per job, and how many updates were HOT.
set -euo pipefail
variant=${1:?variant}; fillfactor=${2:-100}
bin=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
export PGDATABASE=history_cost
here=$(cd "$(dirname "$0")" && pwd)
case $variant in
  skiplock-indexes) table=cj; change="" ;;
  no-history-indexes) table=cj; change="DROP INDEX cj_history_queue, cj_history_kind, cj_history_status;" ;;
  finish-deletes) table=cj; change="CREATE OR REPLACE FUNCTION finish_cj(ids uuid[]) RETURNS integer LANGUAGE sql AS
      \$\$ WITH done AS (DELETE FROM cj WHERE id = ANY (ids) AND lease_token = claim_token RETURNING id)
         SELECT count(*)::integer FROM done \$\$;" ;;
  lease-design) table=pj; change="" ;;
  lease-design-no-leases) table=pj; change="" ;;
  *) echo "unknown variant $variant" >&2; exit 2 ;;
esac
cpu() { # seconds of CPU of every postgres process, with its reaped children
  python3 -c '
import os
total = 0
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        continue
    if stat[stat.index("(") + 1:stat.rindex(")")].startswith("postgres"):
        total += sum(int(x) for x in stat[stat.rindex(")") + 2:].split()[11:15])
print(total / os.sysconf("SC_CLK_TCK"))'
}
psql -q -d postgres -c "DROP DATABASE IF EXISTS history_cost" -c "CREATE DATABASE history_cost"
schema=$(cat "$here/schema.sql")
if [ "$variant" = lease-design-no-leases ]; then # the claim and the success without their lease rows
  schema=$(perl -0pe 's/,\n    leased AS \(INSERT INTO pl[^\n]*\)//; s/,\n    released AS \(DELETE FROM pl[^\n]*\)//' <<<"$schema")
fi
psql -q -v ON_ERROR_STOP=1 <<<"$schema"
psql -q -v ON_ERROR_STOP=1 -c "$change SELECT 1" >/dev/null
psql -q -v ON_ERROR_STOP=1 -c "ALTER TABLE $table SET (fillfactor = $fillfactor)" -c "SELECT seed(100000)" \
     -c "VACUUM ANALYZE cj" -c "VACUUM ANALYZE pj" -c "CHECKPOINT" >/dev/null
printf 'SELECT claim_%s() AS ids \\gset\nSELECT finish_%s(CAST(:ids AS uuid[]));\n' "$table" "$table" > /tmp/history-cost.pgbench
wal0=$(psql -Atc "SELECT pg_current_wal_lsn()"); cpu0=$(cpu)
PGOPTIONS='-c synchronous_commit=off' "$bin/pgbench" -n -M prepared -c 1 -t 1000 -f /tmp/history-cost.pgbench >/dev/null
cpu1=$(cpu); wal1=$(psql -Atc "SELECT pg_current_wal_lsn()")
psql -At -c "SELECT '$variant fillfactor=$fillfactor: ' || round(($cpu1 - $cpu0) * 1e6 / 100000) || ' us of CPU and '
                 || round(pg_wal_lsn_diff('$wal1', '$wal0') / 100000) || ' B of WAL a job; left unfinished '
                 || (SELECT count(*) FROM $table WHERE status <> 'succeeded') || '; updates '
                 || n_tup_upd || ', HOT ' || n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = '$table'"
