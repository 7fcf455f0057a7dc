/*
 * Skiplock's lease protocol: one job, two workers, the database, a client and the faults.
 *
 *   spin -a model/skiplock.pml && gcc -O2 -DSAFETY -DNOCLAIM -o pan pan.c && ./pan           (safety)
 *   spin -a -DLIVENESS model/skiplock.pml && gcc -O2 -DNFAIR=3 -o pan pan.c && ./pan -a -f -N done
 *   -DCMD: the job is a command job (its run outlives its worker; one host per worker)
 *   -DMUT_FENCE_ATTEMPT, -DMUT_NO_UNCLAIM, -DMUT_CMD_ANY_HOST: today's faults 9, 8, 5
 *
 * Bounds: 1 job (max_attempts 2), 2 workers with 2 execution slots each, at most 1 database
 * crash, 1 lost claim reply, 1 worker paused past its lease, 1 worker gone (crash or shutdown),
 * 1 cancel and 1 retry by the client. Timing is abstract: a lease runs out only while nobody
 * who holds its token heartbeats (its worker is paused or dead), and then the reaper may clear it.
 */
#include "common.pml"

#define NW 2          /* workers, numbered 1 and 2 (expanded by hand in the macros below) */
#define CAP 2         /* execution slots per worker: a second one is what lets a worker hold a
                         stale execution of the job and claim it again (fault 9) */
#ifndef MAXATT
#define MAXATT 2
#endif
#define MAXTOK 12     /* tokens handed out in any run of this model stay below this */

/* ---- the job row, as the database has it now ---- */
byte status = QUEUED;        /* inserted by insert_jobs before the model starts */
byte attempt = 0;
byte max_att = MAXATT;
byte owner = NOBODY;         /* locked_by */
byte lease = L_CLEARED;      /* locked_until */
byte ltok = NOTOKEN;         /* lease_token: fresh at every claim and adoption, cleared by reap */
byte ctok = NOTOKEN;         /* claim_token: fresh at claim, kept by adoption: names the run */
bool cancel_req = false;     /* cancel_requested */
byte host = 0;               /* host of the claiming worker (command jobs) */

/* ---- the row as the last flush left it: a database crash goes back to it ----
 * claim_jobs, adopt_orphans and heartbeat commit asynchronously (synchronous_commit = off;
 * SQLite: the claim alone, at PRAGMA synchronous = NORMAL, the others synced);
 * every other statement commits durably, which flushes the WAL, earlier async commits included. */
byte d_status = QUEUED, d_attempt = 0, d_max_att = MAXATT, d_owner = NOBODY, d_lease = L_CLEARED;
byte d_ltok = NOTOKEN, d_ctok = NOTOKEN, d_host = 0;
bool d_cancel_req = false;

byte next_tok = 1;           /* a fresh token is never reused, not even after a database crash
                                (a random UUID, not a sequence a crash could roll back) */

/* ---- workers: what each execution slot holds ---- */
#define K_FREE    0
#define K_EXEC    1   /* an execution runs (command job: the worker waits for run h_run) */
#define K_UNCLAIM 2   /* the claim's reply was lost: give the job back with unclaim_jobs */
#define K_LOST    3   /* adopted, the execution is gone: report a lost attempt */
#define K_CANCEL  4   /* stop the execution, write cancelled */

#define SLOT(w, s) (((w) - 1) * CAP + (s))
byte h_tok[NW * CAP];        /* the token this slot writes with (NOTOKEN: free) */
byte h_att[NW * CAP];        /* the attempt it was given (what the old fence used) */
byte h_kind[NW * CAP];
bool h_beat[NW * CAP];       /* heartbeat sent since the last resume (bounds the loop) */
byte h_run[NW * CAP];        /* the run (claim token) a command execution waits for */

bool crashed[NW + 1], paused[NW + 1], stopped[NW + 1];
#define ALIVE(w) (!crashed[w] && !paused[w] && !stopped[w])
#define HOLDS(w, t) (h_tok[SLOT(w, 0)] == (t) || h_tok[SLOT(w, 1)] == (t))
#define HAS_FREE(w) (h_tok[SLOT(w, 0)] == NOTOKEN || h_tok[SLOT(w, 1)] == NOTOKEN)
#define FREE_SLOT(w) (h_tok[SLOT(w, 0)] == NOTOKEN -> SLOT(w, 0) : SLOT(w, 1))
#define BUSY(w) (h_tok[SLOT(w, 0)] != NOTOKEN || h_tok[SLOT(w, 1)] != NOTOKEN)
/* someone alive holds the token and heartbeats it (or is about to give it back): no expiry */
#define KEEPS_LEASE(t) ((ALIVE(1) && HOLDS(1, t)) || (ALIVE(2) && HOLDS(2, t)))
#define SLOT_IS(i, t, k) (h_tok[i] == (t) && h_kind[i] == (k))
#define ANY_SLOT_IS(t, k) (SLOT_IS(0, t, k) || SLOT_IS(1, t, k) || SLOT_IS(2, t, k) || SLOT_IS(3, t, k))

/* ---- command runs (CMD): a process on its host, named by the claim token ---- */
#define R_NONE    0
#define R_RUNNING 1
#define R_OK      2   /* exited 0, recorded in its run directory */
#define R_FAIL    3   /* exited non-zero, recorded */
#define R_GONE    4   /* killed (cancel) or lost with its host: no exit recorded */
byte rstate[MAXTOK];
byte run_host[MAXTOK];
#define MAXRUNS 6                            /* runs the Runs process lets exit */
#define HOST(w) (w)                          /* -DCMD: one worker per host */
#define HOST_ALIVE(h) (!crashed[h])          /* its worker still touches the worker registry */
#define RUN_FOUND(t) (rstate[t] == R_RUNNING || rstate[t] == R_OK || rstate[t] == R_FAIL)

/* ---- the fence: what a write by an execution must match ---- */
#ifdef MUT_FENCE_ATTEMPT
/* fault 9: (locked_by, attempt); a claim lost in a crash lets the next claim reuse the attempt */
#define FENCE(w, i) (owner == (w) && attempt == h_att[i])
#else
#define FENCE(w, i) (ltok == h_tok[i])
#endif

/* ---- ghosts: what the invariants need to know ---- */
byte finals = 0;     /* terminal transitions since the job was enqueued or last retried */
byte ran = 0;        /* executions started (a claim reply received) */
byte excused = 0;    /* claims whose worker lost the reply and then stalled or died before
                        giving them back: such an attempt is lost like a crash right after claim */

/* budgets of the faults and of the client; a command job's model leaves out the faults that
   do not touch its runs' hosts (database crash, lost reply: checked on the plain job) */
#ifdef CMD
#define MAX_DB_CRASHES 0
#define MAX_REPLIES_LOST 0
#else
#define MAX_DB_CRASHES 1
#define MAX_REPLIES_LOST 1
#endif
byte db_crashes = 0, replies_lost = 0, pauses = 0, gone = 0, cancels = 0, retries = 0;

/*
 * Invariants, true in every reachable state:
 * - attempts <= max attempts: a job never runs more attempts than it is allowed;
 * - an attempt is never used without an execution (unless its worker died or stalled holding
 *   it): a claim whose reply was lost must not cost the job one of its attempts (fault 8);
 * - no job finalized twice: one terminal transition per enqueue or retry;
 * - cancel vs completion, exactly one outcome: at most one terminal transition (above), at
 *   least one (`done`, below), and a job whose cancel was requested is never queued again.
 * Checked at each fenced write: no write with a stale token is applied (the token is the row's).
 */
#define INVARIANT (attempt <= max_att && (status == RUNNING || attempt <= ran + excused) \
                   && finals <= 1 && !(status == QUEUED && cancel_req))

inline commit_durably() {
  d_status = status; d_attempt = attempt; d_max_att = max_att; d_owner = owner; d_lease = lease;
  d_ltok = ltok; d_ctok = ctok; d_host = host; d_cancel_req = cancel_req
}

inline free_slot(i) {
  h_tok[i] = NOTOKEN; h_att[i] = 0; h_kind[i] = K_FREE; h_beat[i] = false; h_run[i] = NOTOKEN
}

inline clear_lease() {
  owner = NOBODY; lease = L_CLEARED; ltok = NOTOKEN
}

inline become_terminal(s) {
  status = s; finals++
}

inline claim(w) {
  i = FREE_SLOT(w);
  /* -- name: claim_jobs */
  status = RUNNING; attempt++; owner = w; lease = L_VALID;
#ifdef CMD
  host = HOST(w);
#endif
  ltok = next_tok; ctok = next_tok; next_tok++;
  assert(next_tok < MAXTOK);
  /* committed asynchronously: no commit_durably() */
  if
  :: replies_lost < MAX_REPLIES_LOST ->
     replies_lost++;    /* the connection dropped after the commit: the worker knows the token it
                           sent but got no rows, runs nothing and gives the jobs back (SQLite reads
                           the rows after the commit, fenced on the lease: a read that fails is this
                           case; one that finds the lease reaped runs nothing, as a heartbeat that
                           finds it gone stops the execution) */
#ifndef MUT_NO_UNCLAIM
     h_tok[i] = ltok; h_kind[i] = K_UNCLAIM
#endif
  :: true ->
     h_tok[i] = ltok; h_att[i] = attempt; h_kind[i] = K_EXEC; h_run[i] = ctok; ran++;
#ifdef CMD
     assert(ctok <= MAXRUNS);
     rstate[ctok] = R_RUNNING; run_host[ctok] = HOST(w)
#endif
  fi;
  i = 0
}

inline unclaim(i) {
  /* -- name: unclaim_jobs */
  if
  :: status == RUNNING && ltok == h_tok[i] ->
     attempt--;   /* never executed: the attempt is given back */
     clear_lease();
     if
     :: cancel_req -> become_terminal(CANCELLED)    /* as release_jobs: the cancel is kept */
     :: else -> status = QUEUED
     fi
  :: else -> skip  /* the claim itself was lost, or the lease already reaped */
  fi;
  commit_durably();
  free_slot(i)
}

inline heartbeat(w, i) {
  /* -- name: heartbeat */
  if
  :: status == RUNNING && FENCE(w, i) ->
     assert(ltok == h_tok[i]);
     lease = L_VALID; h_beat[i] = true;   /* asynchronous commit: a lost extension only shortens */
     if
     :: cancel_req -> h_kind[i] = K_CANCEL
     :: else -> skip
     fi
  :: else -> free_slot(i)   /* missing from the answer: lease lost, stop, never finalize
                               (a command run is left alone: its adopter may resume it) */
  fi
}

/* outcome: SUCCEEDED, FAILED, CANCELLED, or QUEUED for "retry with backoff" */
inline complete(w, i, outcome) {
  /* -- name: complete_jobs */
  if
  :: status == RUNNING && FENCE(w, i) ->
     assert(ltok == h_tok[i]);   /* no write with a stale token is ever applied */
     clear_lease();
     if
     :: outcome == QUEUED && cancel_req -> become_terminal(CANCELLED)
     :: outcome == QUEUED && !cancel_req && attempt < max_att -> status = QUEUED
     :: outcome == QUEUED && !cancel_req && attempt >= max_att -> become_terminal(FAILED)
     :: outcome != QUEUED -> become_terminal(outcome)
     fi;
     commit_durably()
  :: else -> skip   /* stale: the row moved on; the outcome is dropped */
  fi;
  free_slot(i)
}

#ifdef CMD
#define FINISHED(i) (rstate[h_run[i]] == R_OK || rstate[h_run[i]] == R_FAIL)
#else
#define FINISHED(i) true   /* a handler may return at any moment */
#endif

inline finish(w, i) {
#ifdef CMD
  /* the worker waits for the run and reports its recorded exit */
  o = (rstate[h_run[i]] == R_OK -> SUCCEEDED : QUEUED);
#else
  if :: o = SUCCEEDED :: o = FAILED :: o = QUEUED fi;   /* what the handler returned */
#endif
  complete(w, i, o);
  o = 0
}

inline stop_and_cancel(w, i) {
#ifdef CMD
  if
  :: run_host[h_run[i]] == HOST(w) && rstate[h_run[i]] == R_RUNNING -> rstate[h_run[i]] = R_GONE  /* kill */
  :: else -> skip
  fi;
#endif
  complete(w, i, CANCELLED)
}

inline adopt(w) {
  i = FREE_SLOT(w);
  /* -- name: adopt_orphans */
  owner = w; lease = L_VALID; ltok = next_tok; next_tok++;   /* asynchronous, as claim_jobs */
  assert(next_tok < MAXTOK);
  h_tok[i] = ltok; h_att[i] = attempt; h_run[i] = ctok;
  if
  :: cancel_req -> h_kind[i] = K_CANCEL   /* cancelled while orphaned: stop at once */
#ifdef CMD
  :: !cancel_req && host == HOST(w) && RUN_FOUND(ctok) -> h_kind[i] = K_EXEC  /* resume the run */
  :: !cancel_req && !(host == HOST(w) && RUN_FOUND(ctok)) ->
     /* fault 5: never call a run lost while it lives on a host whose workers are alive */
     assert(!(HOST_ALIVE(host) && RUN_FOUND(ctok)));
     h_kind[i] = K_LOST
#else
  :: !cancel_req -> h_kind[i] = K_LOST    /* an in-process handler died with its worker */
#endif
  fi;
  i = 0
}

#if defined(CMD) && !defined(MUT_CMD_ANY_HOST)
/* a command job's run lives on its host: only that host adopts it while the host is alive */
#define ADOPTABLE(w) (host == HOST(w) || !HOST_ALIVE(host))
#else
#define ADOPTABLE(w) true    /* MUT_CMD_ANY_HOST, fault 5: any host adopts */
#endif

inline release_slot(w, i) {
  if
  :: h_kind[i] == K_EXEC && status == RUNNING && FENCE(w, i) ->
     assert(ltok == h_tok[i]);
     clear_lease();
     if :: max_att < attempt + 1 -> max_att = attempt + 1 :: else -> skip fi;
     if
     :: cancel_req -> become_terminal(CANCELLED)
     :: else -> status = QUEUED   /* the attempt stays counted: it did run */
     fi
  :: else -> skip
  fi;
  free_slot(i)
}

active [NW] proctype Worker() {
  byte w = _pid + 1;   /* Worker is the first active proctype: pids 0 and 1 */
  byte i, o;
end:
  do
  :: atomic { ALIVE(w) && HAS_FREE(w) && status == QUEUED -> claim(w) }
  :: atomic { ALIVE(w) && HAS_FREE(w) && status == RUNNING && lease == L_CLEARED && ADOPTABLE(w)
              -> adopt(w) }
  :: atomic { ALIVE(w) && h_kind[SLOT(w, 0)] == K_UNCLAIM -> unclaim(SLOT(w, 0)) }
  :: atomic { ALIVE(w) && h_kind[SLOT(w, 1)] == K_UNCLAIM -> unclaim(SLOT(w, 1)) }
  :: atomic { ALIVE(w) && h_kind[SLOT(w, 0)] == K_EXEC && !h_beat[SLOT(w, 0)] -> heartbeat(w, SLOT(w, 0)) }
  :: atomic { ALIVE(w) && h_kind[SLOT(w, 1)] == K_EXEC && !h_beat[SLOT(w, 1)] -> heartbeat(w, SLOT(w, 1)) }
  :: atomic { ALIVE(w) && h_kind[SLOT(w, 0)] == K_EXEC && FINISHED(SLOT(w, 0)) -> finish(w, SLOT(w, 0)) }
  :: atomic { ALIVE(w) && h_kind[SLOT(w, 1)] == K_EXEC && FINISHED(SLOT(w, 1)) -> finish(w, SLOT(w, 1)) }
  :: atomic { ALIVE(w) && h_kind[SLOT(w, 0)] == K_LOST -> complete(w, SLOT(w, 0), QUEUED) }
  :: atomic { ALIVE(w) && h_kind[SLOT(w, 1)] == K_LOST -> complete(w, SLOT(w, 1), QUEUED) }
  :: atomic { ALIVE(w) && h_kind[SLOT(w, 0)] == K_CANCEL -> stop_and_cancel(w, SLOT(w, 0)) }
  :: atomic { ALIVE(w) && h_kind[SLOT(w, 1)] == K_CANCEL -> stop_and_cancel(w, SLOT(w, 1)) }
#ifndef CMD
  /* graceful shutdown at its deadline: executions still running are given back (the worker
     first writes the outcomes it has, so only K_EXEC slots remain) */
  :: atomic { ALIVE(w) && gone < 1 && BUSY(w) &&
              (h_kind[SLOT(w, 0)] == K_EXEC || h_kind[SLOT(w, 0)] == K_FREE) &&
              (h_kind[SLOT(w, 1)] == K_EXEC || h_kind[SLOT(w, 1)] == K_FREE) ->
       gone++;
       /* -- name: release_jobs */
       release_slot(w, SLOT(w, 0));
       release_slot(w, SLOT(w, 1));
       commit_durably();
       stopped[w] = true }
#endif
  od
}

/* any node's reaper, and time passing */
active proctype Reaper() {
end:
  do
  :: atomic { status == RUNNING && lease == L_VALID && !KEEPS_LEASE(ltok) ->
       /* time: the lease runs out, nobody heartbeats it */
       lease = L_EXPIRED;
       if :: ANY_SLOT_IS(ltok, K_UNCLAIM) -> excused++ :: else -> skip fi }
  :: atomic { status == RUNNING && lease == L_EXPIRED ->
       /* -- name: reap_expired_leases */
       clear_lease();   /* the token goes too: the stale holder cannot write even before adoption */
       commit_durably() }
  od
}

/* the client: one cancel, one retry, at any moment */
active proctype Client() {
end:
  do
  :: atomic { cancels < 1 && (status == QUEUED || status == RUNNING) ->
       cancels++;
       /* -- name: cancel_job */
       if
       :: status == RUNNING -> cancel_req = true   /* the owner stops it and writes cancelled */
       :: else -> become_terminal(CANCELLED)
       fi;
       commit_durably() }
  :: atomic { retries < 1 && TERMINAL(status) ->
       retries++;
       /* -- name: retry_job */
       status = QUEUED; cancel_req = false; finals = 0;
       if :: max_att < attempt + 1 -> max_att = attempt + 1 :: else -> skip fi;
       commit_durably() }
  od
}

inline kill_runs_of(h) {
  for (t : 1 .. MAXTOK - 1) {
    if :: rstate[t] == R_RUNNING && run_host[t] == h -> rstate[t] = R_GONE :: else -> skip fi
  }
  t = 0
}

active proctype Faults() {
  byte t;
end:
  do
  :: atomic { db_crashes < MAX_DB_CRASHES ->
       db_crashes++;
       /* the database crashes: what was not flushed is lost; open connections drop (a worker
          notices at its next statement, which is how its fenced writes then behave) */
       status = d_status; attempt = d_attempt; max_att = d_max_att; owner = d_owner;
       lease = d_lease; ltok = d_ltok; ctok = d_ctok; host = d_host; cancel_req = d_cancel_req }
  :: atomic { pauses < 1 && ALIVE(1) && BUSY(1) -> pauses++; paused[1] = true }
  :: atomic { pauses < 1 && ALIVE(2) && BUSY(2) -> pauses++; paused[2] = true }
  :: atomic { paused[1] -> paused[1] = false; h_beat[SLOT(1, 0)] = false; h_beat[SLOT(1, 1)] = false }
  :: atomic { paused[2] -> paused[2] = false; h_beat[SLOT(2, 0)] = false; h_beat[SLOT(2, 1)] = false }
  :: atomic { gone < 1 && ALIVE(1) -> gone++; crashed[1] = true }   /* its executions vanish */
  :: atomic { gone < 1 && ALIVE(2) -> gone++; crashed[2] = true }
#ifdef CMD
  /* the whole host goes: its runs die too, and their exits are never recorded */
  :: atomic { gone < 1 && ALIVE(1) -> gone++; crashed[1] = true; kill_runs_of(1) }
  :: atomic { gone < 1 && ALIVE(2) -> gone++; crashed[2] = true; kill_runs_of(2) }
#endif
  od
}

#ifdef CMD
#define EXITS(t) :: atomic { rstate[t] == R_RUNNING -> if :: rstate[t] = R_OK :: rstate[t] = R_FAIL fi }
/* command processes: each exits on its own, unless killed first */
active proctype Runs() {
end:
  do
  EXITS(1)
  EXITS(2)
  EXITS(3)
  EXITS(4)
  EXITS(5)
  EXITS(6)
  od
}
#endif

#ifndef LIVENESS
active proctype Invariants() {
  assert(INVARIANT)
}

/* nothing can move any more: the job must have ended */
active proctype Quiescence() {
  timeout -> assert(TERMINAL(status))
}
#endif

DEADLOCK_STUTTERS

/* liveness: under weak fairness the job ends, and stays ended */
ltl done { <> [] (status == SUCCEEDED || status == FAILED || status == TIMED_OUT || status == CANCELLED) }
