/*
 * Rescuing an orphan while traffic flows (liveness). A job of queue q was running on a worker that
 * died; its lease has run out. Node R's reaper (R does not serve q) and node F's reaper (F serves
 * q) race to reap it; F's claimer is woken by a steady stream of enqueue notifications for q.
 *
 *   spin -a model/orphans.pml && gcc -O2 -DNFAIR=3 -o pan pan.c && ./pan -a -f -N rescued
 *   -DMUT_ORPHAN_WAKE_ONLY: fault 6, a claimer looks for orphans only when its own node's reaper
 *   found some or at a poll timeout, which a claimer woken by notifications never reaches.
 *
 * Property: under weak fairness the orphan is adopted and the job ends: an orphan is rescued
 * within lease + reaper + poll, whichever node reaps it and however busy its queue is.
 */
#include "common.pml"

#define F 1             /* the claiming node's worker; the dead worker was 3 */

byte status = RUNNING;
byte lease = L_EXPIRED;
byte owner = 3;
bool adopted = false;   /* F adopted it: its execution is gone, a lost attempt to report */
bool notified = false;  /* an enqueue notification for q waits for F's claimer */
bool poll_due = false;  /* a poll interval passed since F's claimer last looked for orphans */
bool woken = false;     /* F's own reaper found orphans and woke F's claimers */

inline reap() {
  /* -- name: reap_expired_leases */
  lease = L_CLEARED; owner = NOBODY
}

inline look_for_orphans() {
  poll_due = false;
  if
  :: status == RUNNING && lease == L_CLEARED ->
     /* -- name: adopt_orphans */
     owner = F; lease = L_VALID; adopted = true
  :: else -> skip
  fi
}

inline claim() {
  if
  :: status == QUEUED -> /* -- name: claim_jobs */ status = RUNNING; owner = F; lease = L_VALID
  :: else -> skip   /* (the other new jobs are not tracked) */
  fi
}

active proctype Claimer() {
  bool look;
end:
  do
  :: atomic { notified || woken || poll_due ->
       /* woken by an enqueue notification, by its own node's reaper, or by a poll timeout
          (a poll interval without notification) */
#ifdef MUT_ORPHAN_WAKE_ONLY
       look = woken || (poll_due && !notified);
#else
       look = woken || poll_due;   /* at least once per poll interval, however busy */
#endif
       notified = false; woken = false;
       if :: look -> look_for_orphans() :: else -> skip fi;
       claim();
       look = false }
  od
}

/* F's handler threads and completer: the claimer only claims and adopts */
active proctype Completer() {
end:
  do
  :: atomic { adopted -> adopted = false;
       /* -- name: complete_jobs */
       status = QUEUED; owner = NOBODY; lease = L_CLEARED }   /* lost attempt: retry */
  :: atomic { status == RUNNING && owner == F && !adopted ->
       /* -- name: complete_jobs */
       status = SUCCEEDED; owner = NOBODY; lease = L_CLEARED }
  od
}

active proctype ReaperR() {   /* wakes R's claimers: none serves q */
end:
  do
  :: atomic { status == RUNNING && lease == L_EXPIRED -> reap() }
  od
}

active proctype ReaperF() {
end:
  do
  :: atomic { status == RUNNING && lease == L_EXPIRED -> reap(); woken = true }
  od
}

active proctype Traffic() {   /* jobs keep arriving in q: insert_jobs notifies on commit */
end:
  do
  :: atomic { !notified -> /* -- name: insert_jobs */ notified = true }
  od
}

active proctype Clock() {
end:
  do
  :: atomic { !poll_due -> poll_due = true }
  od
}

ltl rescued { <> (status == SUCCEEDED) }
