/*
 * Cron slots: two schedulers run the same schedule with clocks up to one slot apart, each may stall
 * between its check of a slot's lateness and its claim; jobs finish at once; retention prunes jobs
 * and slot markers long after their slot. A claim and a prune are transactions of two steps each,
 * as READ COMMITTED runs them: the claim inserts the marker (waiting for a prune's uncommitted
 * delete of it, or another claim's uncommitted insert), then checks the pruned slots in a statement
 * of its own; the prune deletes the marker, then records the schedule's pruned slot and commits.
 *
 *   spin -a model/cron.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 *   -DMUT_CRON_LIVE_ONLY: fault 3, uniqueness among live jobs only (today's unique key): a slow
 *   scheduler enqueues a slot again once the first run of it has finished.
 *   -DMUT_CRON_PRUNE_FORGETS: a pruned marker was the slot's only record (before migration 0033): a
 *   scheduler that stalled between its check of a slot's lateness and its claim enqueues the slot
 *   again once its marker is pruned.
 *   -DMUT_CRON_CHECK_FIRST: the pruned slots checked before the marker's insert (or inside its
 *   statement, in its snapshot): a claim that waited for a prune's delete missed what it recorded.
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

/* a (schedule, slot) row: none, committed, inserted by a claim not yet committed, deleted by a prune not yet committed */
#define M_NONE 0
#define M_COMMITTED 1
#define M_INSERTING 2
#define M_DELETING 3

byte clock[NSCHED];
byte fired[NSCHED];        /* the last slot this scheduler handled (lost on restart) */
byte marker[NSLOT + 1];    /* (schedule, slot) rows */
byte pruned = 0;           /* skiplock_cron_pruned: the latest slot whose marker was pruned */
byte pending[NSCHED];      /* the slot this scheduler checked on time and is about to claim */
byte inserted[NSCHED];     /* the slot whose marker this scheduler's claim inserted, not yet committed */
bool checked[NSCHED];      /* MUT_CRON_CHECK_FIRST: its check, made first, was made */
bool sawPruned[NSCHED];    /* MUT_CRON_CHECK_FIRST: what that check read */
byte job[NSLOT + 1];       /* the slot's job */
byte enqueued[NSLOT + 1];  /* ghost: times the slot was enqueued */
byte restarts = 0;

#define OTHER(i) (1 - (i))
#define LIVE(s) (job[s] == QUEUED || job[s] == RUNNING)

/* the claim's commit: the marker and the job commit together */
inline enqueue(s) {
  /* -- name: insert_jobs */
  job[s] = QUEUED;
  enqueued[s]++;
  assert(enqueued[s] <= 1)
}

active [NSCHED] proctype Scheduler() {
  byte i = _pid;   /* Scheduler is the first active proctype: pids 0 and 1 */
  byte s;
end:
  do
  :: atomic { clock[i] < MAXCLOCK && clock[i] + 1 <= clock[OTHER(i)] + SKEW -> clock[i]++ }
  :: atomic { pending[i] == 0 && fired[i] < clock[i] && fired[i] < NSLOT ->
       fired[i]++;
       if
       :: fired[i] + HORIZON >= clock[i] -> pending[i] = fired[i]   /* on time: claimed next */
       :: else -> skip   /* too late: skipped */
       fi }
#ifdef MUT_CRON_LIVE_ONLY
  :: atomic { pending[i] != 0 ->   /* the unique key covers live jobs only */
       s = pending[i];
       if
       :: !LIVE(s) -> enqueue(s)
       :: else -> skip
       fi;
       pending[i] = 0; s = 0 }
#else
#ifdef MUT_CRON_CHECK_FIRST
  :: atomic { pending[i] != 0 && !checked[i] ->
       /* -- name: cron_slot_pruned, first */
       sawPruned[i] = (pending[i] <= pruned); checked[i] = true }
  :: atomic { checked[i] && marker[pending[i]] != M_INSERTING && marker[pending[i]] != M_DELETING ->
       s = pending[i];
       /* -- name: claim_cron_slot, then the commit */
       if
       :: marker[s] == M_NONE && !sawPruned[i] -> marker[s] = M_COMMITTED; enqueue(s)
       :: else -> skip
       fi;
       checked[i] = false; sawPruned[i] = false; pending[i] = 0; s = 0 }
#else
  /* ON CONFLICT waits for a marker another transaction inserted or deleted, until it ends */
  :: atomic { pending[i] != 0 && inserted[i] == 0 && marker[pending[i]] != M_INSERTING && marker[pending[i]] != M_DELETING ->
       s = pending[i];
       /* -- name: claim_cron_slot */
       if
       :: marker[s] == M_NONE -> marker[s] = M_INSERTING; inserted[i] = s
       :: else -> pending[i] = 0   /* taken: nothing enqueued */
       fi;
       s = 0 }
  :: atomic { inserted[i] != 0 ->
       s = inserted[i];
       /* -- name: cron_slot_pruned */
       if
#ifdef MUT_CRON_PRUNE_FORGETS
       :: true -> marker[s] = M_COMMITTED; enqueue(s)
#else
       :: s <= pruned -> marker[s] = M_NONE   /* rolled back: nothing enqueued */
       :: s > pruned -> marker[s] = M_COMMITTED; enqueue(s)
#endif
       :: marker[s] = M_NONE   /* the transaction is lost (scheduler or database crash before commit) */
       fi;
       inserted[i] = 0; pending[i] = 0; s = 0 }
#endif
#endif
  :: atomic { restarts < 1 && inserted[i] == 0 ->   /* a scheduler restarts and fires again from its horizon */
       restarts++; pending[i] = 0; checked[i] = false; sawPruned[i] = false;
       fired[i] = (clock[i] > HORIZON + 1 -> clock[i] - HORIZON - 1 : 0) }
  od
}

/* the job runs and finishes at once; retention prunes it, and its marker long after the slot */
active proctype Others() {
  byte deleting = 0;   /* the slot whose marker the prune deleted, not yet committed */
end:
  do
  :: atomic { LIVE(1) -> /* -- name: complete_jobs */ job[1] = SUCCEEDED }
  :: atomic { LIVE(2) -> /* -- name: complete_jobs */ job[2] = SUCCEEDED }
  :: atomic { job[1] == SUCCEEDED && clock[0] > 1 + HORIZON && clock[1] > 1 + HORIZON ->
       /* -- name: prune_finished */
       job[1] = DELETED }
  :: atomic { job[2] == SUCCEEDED && clock[0] > 2 + HORIZON && clock[1] > 2 + HORIZON ->
       /* -- name: prune_finished */
       job[2] = DELETED }
  :: atomic { deleting == 0 && job[1] == DELETED && marker[1] == M_COMMITTED ->
       /* -- name: prune_cron_slots */
       marker[1] = M_DELETING; deleting = 1 }
  :: atomic { deleting == 0 && job[2] == DELETED && marker[2] == M_COMMITTED ->
       /* -- name: prune_cron_slots */
       marker[2] = M_DELETING; deleting = 2 }
  :: atomic { deleting != 0 ->
       /* -- name: record_pruned_cron_slot */
       pruned = (pruned > deleting -> pruned : deleting);
       marker[deleting] = M_NONE; deleting = 0 }   /* committed */
  od
}
