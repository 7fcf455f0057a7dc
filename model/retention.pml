/*
 * Retention against retry: a job finished long ago; a client retries it (and a worker may run
 * it again) while prune_finished deletes old finished jobs.
 *
 *   spin -a model/retention.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 *   -DMUT_PRUNE_NO_RECHECK: fault 7, the DELETE trusts the ids its subquery picked: a job retried
 *   in between is deleted while queued (or running).
 *
 * prune_finished is one statement but, under READ COMMITTED, sees the job at two moments: its
 * subquery picks ids from the statement's snapshot; its DELETE then locks each row, waiting for
 * a writer, and re-checks only the DELETE's own WHERE on the newest row version. So the model
 * splits it in two steps. Invariant: retention deletes only terminal jobs (a retried job is
 * someone's work in flight: deleting it loses the job and its history).
 */
#include "common.pml"

byte status = SUCCEEDED;
bool old = true;        /* finished longer ago than the retention age */
bool picked = false;    /* the pruner's subquery picked the job */
byte retries = 0;

active proctype Pruner() {
end:
  do
  :: atomic { !picked && TERMINAL(status) && old ->
       /* -- name: prune_finished */
       picked = true }   /* the subquery: ids of old terminal jobs */
  :: atomic { picked ->
       /* -- name: prune_finished */
#ifdef MUT_PRUNE_NO_RECHECK
       assert(TERMINAL(status));   /* DELETE ... WHERE id IN (picked ids) */
       status = DELETED;
#else
       if   /* DELETE ... WHERE id IN (picked ids) AND status IN (terminal statuses) */
       :: TERMINAL(status) -> status = DELETED
       :: else -> skip
       fi;
#endif
       picked = false }
  od
}

active proctype Others() {
end:
  do
  :: atomic { retries < 1 && TERMINAL(status) ->
       /* -- name: retry_job */
       retries++; status = QUEUED; old = false }
  :: atomic { status == QUEUED -> /* -- name: claim_jobs */ status = RUNNING }
  :: atomic { status == RUNNING ->
       /* -- name: complete_jobs */
       if :: status = SUCCEEDED :: status = FAILED fi }
  :: atomic { TERMINAL(status) && !old -> old = true }   /* time: the retention age passes */
  od
}
