/*
 * Dependencies under READ COMMITTED: job C depends on A and B (the bottom of a diamond). A and B
 * run; C is enqueued while they run; A and B finish, each succeeding or failing, in two concurrent
 * transactions; the reaper tick's settle_waiting_jobs is the backstop.
 *
 *   spin -a model/dependencies.pml && gcc -O2 -DSAFETY -DNOCLAIM -o pan pan.c && ./pan
 *   spin -a -DLIVENESS model/dependencies.pml && gcc -O2 -DNFAIR=3 -o pan pan.c && ./pan -a -f -N done
 *   -DMUT_DEP_NO_LOCK: fault 2, the trigger decides from its statement's snapshot without first
 *   locking the dependent: two parents finishing together each see the other still running.
 *
 * What a transaction writes is invisible to the others until its commit step; a statement sees
 * what was committed when it started (its snapshot), and a row it updates as last committed (it
 * waits for the row's lock, then re-checks its WHERE on the newest version).
 */
#include "common.pml"

#define A 0
#define B 1
#define C 2

byte st[3];            /* committed statuses; C is ABSENT until its enqueue commits */
byte lock_c = 0;       /* the transaction holding C's row lock: 1 + parent, or 0 */

/* ghosts */
bool missed[2];        /* parent p's trigger ran while C's enqueue was not committed yet */
byte read_st[2];       /* what C's enqueue read of each parent */
bool raced = false;    /* C committed waiting for a parent whose trigger had already missed it:
                          only settle_waiting_jobs can release (or fail) it */

#define PARENTS_DONE (st[A] == SUCCEEDED && st[B] == SUCCEEDED)
#define PARENT_FAILED (st[A] == FAILED || st[B] == FAILED)   /* failed stands for any of
                                                               failed, timed_out, cancelled */
/*
 * No job waiting once all its parents succeeded (or one failed). It holds at once, whatever the
 * concurrency of the parents, except after C's enqueue raced a parent's completion; then it holds
 * once settle_waiting_jobs has run (an eventual property: see `done`).
 */
#define STUCK (st[C] == WAITING && (PARENTS_DONE || PARENT_FAILED))
#define INVARIANT (!STUCK || raced)

/* the transaction completing parent p; out is its outcome */
proctype Parent(byte p) {
  byte out, other = 1 - p, snap_other, found, write_c;
  if :: out = SUCCEEDED :: out = FAILED fi;
#ifdef MUT_DEP_NO_LOCK
  /* -- name: complete_jobs */
  /* the row's update and the trigger run in one statement, with one snapshot: the other
     parent's status and C as committed when the statement started */
  atomic {
    snap_other = st[other];
    found = (st[C] == WAITING);
    missed[p] = (st[C] == ABSENT)
  }
  if
  :: found && (out == FAILED || snap_other == SUCCEEDED) ->
     /* the UPDATE of C waits for C's lock, then re-checks `status = 'waiting'` on the newest
        row, but its NOT EXISTS over the parents still reads the statement's snapshot */
     atomic { lock_c == 0 -> lock_c = p + 1;
              if :: st[C] == WAITING -> write_c = (out == FAILED -> FAILED : QUEUED) :: else fi }
  :: else -> skip
  fi;
#else
  /* -- name: complete_jobs */
  /* the trigger's first statement: SELECT the waiting dependents FOR UPDATE. It waits for a
     lock held by the other parent's transaction, then returns C only if C is still waiting */
  atomic {
    if
    :: st[C] == ABSENT -> missed[p] = true   /* C not committed yet: invisible */
    :: st[C] != ABSENT && lock_c == 0 -> lock_c = p + 1; found = (st[C] == WAITING)
    fi
  }
  /* its second statement, with a fresh snapshot taken after the lock: a parent that committed
     meanwhile is seen (the lock serialises the parents' triggers on C) */
  atomic {
    if
    :: found && out == FAILED -> write_c = FAILED        /* cascade */
    :: found && out == SUCCEEDED && st[other] == SUCCEEDED -> write_c = QUEUED
    :: else -> skip
    fi
  }
#endif
  /* commit */
  atomic {
    st[p] = out;
    if
    :: write_c == QUEUED -> assert(PARENTS_DONE); st[C] = QUEUED
    :: write_c == FAILED -> assert(PARENT_FAILED); st[C] = FAILED
    :: else -> skip
    fi;
    if :: lock_c == p + 1 -> lock_c = 0 :: else -> skip fi;
    write_c = 0; found = 0; snap_other = 0
  }
}

/* C's enqueue: one transaction that reads its parents' statuses without locking them */
proctype Enqueue() {
  byte born;
  atomic {
    /* -- name: insert_jobs */
    /* C's status comes from its parents' statuses as this transaction reads them */
    read_st[A] = st[A]; read_st[B] = st[B];
    born = (read_st[A] == FAILED || read_st[B] == FAILED -> FAILED :
            (read_st[A] == SUCCEEDED && read_st[B] == SUCCEEDED -> QUEUED : WAITING))
  }
  atomic {
    /* -- name: insert_dependencies */
    /* then commit: a parent that finished in between did not see C */
    st[C] = born;
    raced = (born == WAITING && ((missed[A] && read_st[A] == RUNNING) || (missed[B] && read_st[B] == RUNNING)))
  }
}

/* a reaper's tick whose turn it is (only its runs that find C are modelled): a read finds C
   stuck; the statement that settles it, later, reads C and its parents again and settles C only if it is
   still stuck (what happened in between, such as the trigger releasing C, stands). The parents
   here never leave a terminal status (no retry), so reading them under C's lock, as modelled, and
   at the statement's start, as PostgreSQL does, come to the same. */
active proctype Settler() {
end:
  do
  :: STUCK ->  /* -- name: find_settleable_jobs */
     atomic { lock_c == 0 ->
       /* -- name: settle_waiting_jobs */
       if
       :: STUCK -> st[C] = (PARENT_FAILED -> FAILED : QUEUED); raced = false
       :: else -> skip
       fi }
  od
}

/* a worker runs C once released */
active proctype Worker() {
end:
  do
  :: atomic { st[C] == QUEUED -> /* -- name: claim_jobs */ st[C] = RUNNING }
  :: atomic { st[C] == RUNNING -> /* -- name: complete_jobs */ st[C] = SUCCEEDED }
  od
}

init {
  atomic {
    st[A] = RUNNING; st[B] = RUNNING;
    run Parent(A); run Parent(B); run Enqueue()
  }
}

#ifndef LIVENESS
active proctype Invariants() {
  assert(INVARIANT)
}

active proctype Quiescence() {
  timeout -> assert(TERMINAL(st[A]) && TERMINAL(st[B]) && TERMINAL(st[C]))
}
#endif

DEADLOCK_STUTTERS

/* under weak fairness every job ends: C is never left waiting for good */
ltl done { <> (TERMINAL(st[A]) && TERMINAL(st[B]) && TERMINAL(st[C])) }
