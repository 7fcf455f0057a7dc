/*
 * Cron slots: two schedulers run the same schedule with clocks up to one slot apart; jobs finish
 * at once; retention prunes jobs and slot markers long after their slot.
 *
 *   spin -a model/cron.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 *   -DMUT_CRON_LIVE_ONLY: fault 3, uniqueness among live jobs only (today's unique key): a slow
 *   scheduler enqueues a slot again once the first run of it has finished.
 *
 * Invariant: each (schedule, slot) is enqueued at most once, ever. It matters because a cron job
 * is typically not idempotent (a report sent, a bill run) and the product promises one run per
 * slot however many servers run the schedule.
 */
#include "common.pml"

#define NSCHED 2
#define NSLOT 2        /* slots 1 and 2 */
#define SKEW 1         /* the clocks differ by at most this many slots */
#define HORIZON 1      /* a scheduler fires a slot it missed at most this many slots late */
#define MAXCLOCK (NSLOT + HORIZON + 1)

byte clock[NSCHED];
byte fired[NSCHED];        /* the last slot this scheduler handled (lost on restart) */
bool marker[NSLOT + 1];    /* (schedule, slot) rows */
byte job[NSLOT + 1];       /* the slot's job */
byte enqueued[NSLOT + 1];  /* ghost: times the slot was enqueued */
byte restarts = 0;

#define OTHER(i) (1 - (i))
#define LIVE(s) (job[s] == QUEUED || job[s] == RUNNING)

inline fire(s) {
  /* one transaction: the marker and the job commit together, or neither does */
#ifdef MUT_CRON_LIVE_ONLY
  if
  :: !LIVE(s) ->   /* the unique key covers live jobs only */
#else
  if
  :: !marker[s] ->
     /* -- name: claim_cron_slot */
     marker[s] = true;   /* INSERT ... ON CONFLICT DO NOTHING: only the inserter enqueues */
#endif
     /* -- name: insert_jobs */
     job[s] = QUEUED;
     enqueued[s]++;
     assert(enqueued[s] <= 1)
  :: else -> skip
  fi
}

active [NSCHED] proctype Scheduler() {
  byte i = _pid;   /* Scheduler is the first active proctype: pids 0 and 1 */
  byte s;
end:
  do
  :: atomic { clock[i] < MAXCLOCK && clock[i] + 1 <= clock[OTHER(i)] + SKEW -> clock[i]++ }
  :: atomic { fired[i] < clock[i] && fired[i] < NSLOT ->
       fired[i]++; s = fired[i];
       if
       :: s + HORIZON >= clock[i] ->
          if
          :: fire(s)
          :: skip   /* the transaction is lost (scheduler or database crash before commit) */
          fi
       :: else -> skip   /* too late: skipped */
       fi;
       s = 0 }
  :: atomic { restarts < 1 ->   /* a scheduler restarts and fires again from its horizon */
       restarts++;
       fired[i] = (clock[i] > HORIZON + 1 -> clock[i] - HORIZON - 1 : 0) }
  od
}

/* the job runs and finishes at once; retention prunes it and its marker long after the slot */
active proctype Others() {
  byte s;
end:
  do
  :: atomic { LIVE(1) -> /* -- name: complete_jobs */ job[1] = SUCCEEDED }
  :: atomic { LIVE(2) -> /* -- name: complete_jobs */ job[2] = SUCCEEDED }
  :: atomic { job[1] == SUCCEEDED && clock[0] > 1 + HORIZON && clock[1] > 1 + HORIZON ->
       /* -- name: prune_finished */
       job[1] = DELETED; marker[1] = false }   /* markers go with the job history */
  :: atomic { job[2] == SUCCEEDED && clock[0] > 2 + HORIZON && clock[1] > 2 + HORIZON ->
       /* -- name: prune_finished */
       job[2] = DELETED; marker[2] = false }
  od
}
