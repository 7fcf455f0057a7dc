/*
 * Skiplock's protocol models: the vocabulary they share. See README "Model checking".
 *
 * A model transition that stands for a SQL statement carries a comment naming it the way the SQL
 * files do (the dash-dash-name tag); ModelCheckTest checks that both dialects define every
 * statement named so. Each statement is one atomic step: PostgreSQL and SQLite run it as one
 * statement; where READ COMMITTED lets a statement see the world at two moments (its snapshot,
 * then the row it locks), the model splits it into those two steps and says so.
 */

/* job statuses (the contract's; ABSENT: not inserted yet or aborted, DELETED: pruned) */
#define ABSENT    0
#define WAITING   1
#define QUEUED    2
#define RUNNING   3
#define SUCCEEDED 4
#define FAILED    5   /* timed_out takes exactly the same paths (fenced, terminal, cascades) */
#define TIMED_OUT 6
#define CANCELLED 7
#define DELETED   8

#define TERMINAL(s) ((s) >= SUCCEEDED && (s) <= CANCELLED)

/* locked_until, abstracted: valid (owner heartbeats), expired (time ran out), cleared (NULL) */
#define L_CLEARED 0
#define L_VALID   1
#define L_EXPIRED 2

#define NOBODY 0   /* locked_by NULL; workers are numbered from 1 */
#define NOTOKEN 0  /* lease_token NULL */

/*
 * Liveness runs (spin -DLIVENESS, pan -a -f) leave the safety monitors out, and end the model
 * with DEADLOCK_STUTTERS: under weak fairness pan does not extend a run that deadlocked by
 * stuttering, so a job stuck with nothing left to move it would go unreported. This process
 * moves only when nothing else can, and so makes such a run an infinite, fair one.
 */
#ifdef LIVENESS
#define DEADLOCK_STUTTERS active proctype Stutter() { end: do :: timeout od }
#else
#define DEADLOCK_STUTTERS
#endif
