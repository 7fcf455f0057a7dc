package dev.skiplock;

import java.sql.Connection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Enqueue and manage jobs of one tenant. Every call is scoped to that tenant: a job of another
 * tenant is "not found". Thread-safe.
 */
public interface JobClient {
    /** The tenant every call of this client reads and writes. */
    String tenant();

    /**
     * Enqueues one job in its own transaction; returns it, or the live job holding its unique key.
     *
     * <p>A request with {@link JobRequest#withDurable(boolean) durable(false)} is an <em>in-memory
     * job</em> (seed ADR-0001): nothing is written to the database; it starts at once in this process
     * with the handler registered for its kind on this instance (started or not), on a virtual
     * thread of its own (queue concurrency and priority are recorded, not applied), is forgotten
     * {@link SkiplockConfig#retention()} after it finished, and is lost when the instance closes. {@link #get}, {@link #cancel}, {@link #delete}, {@link #events},
     * {@link #awaitEvents} and {@link #awaitTerminal} answer for it on this instance only, in the
     * same shapes as for a durable job; {@link #list} and {@link #count} show durable jobs only, and
     * {@link #retry} refuses it ({@link JobStateException}: it is never restarted). Outcomes map as
     * for durable jobs: a snooze runs it again after the delay, a failure or timeout is retried per
     * the kind's {@link RetryPolicy} while attempts remain, a cancel interrupts the handler; events
     * and {@code attempt} count the same way. Refused with an {@link IllegalArgumentException} naming
     * the field: {@code runAt}, {@code uniqueKey}, {@code dependsOn}, a {@code kind} with no handler
     * here; and {@code durable} in {@link #enqueue(Connection, JobRequest)},
     * {@link #enqueueMany}, {@link #enqueueScheduled} (in-memory jobs are enqueued one at a time).
     */
    Job enqueue(JobRequest request);

    /**
     * Enqueues one job inside the caller's transaction: a rollback leaves no job. The caller commits;
     * workers of this instance pick it up at their next poll (or at once via notification).
     */
    Job enqueue(Connection connection, JobRequest request);

    /**
     * Like {@link #enqueue(JobRequest)}, and tells whether the job was created or an existing live
     * job with the same unique key was returned ("reuse or create").
     */
    Enqueued enqueueOrReuse(JobRequest request);

    /**
     * Enqueues {@code request} for one slot of a periodic schedule, at most once ever: one
     * transaction records the slot ({@code schedule}, {@code slot}, this tenant) and enqueues the job;
     * when the slot is already recorded (another scheduler, or an earlier call whose answer was lost,
     * got there first) nothing is enqueued. This holds however many schedulers run, whenever their
     * timers fire and whether or not the slot's job has finished. Slot records are pruned with the
     * job history ({@link SkiplockConfig#retention()}), but kept at least a day and until the slot
     * itself is that old, so a scheduler whose clock is behind by less than that still finds the
     * slot taken; and a slot no later than one of the schedule whose record was pruned is not
     * enqueued either (the latest pruned slot of each schedule is kept for good): a schedule's
     * slots are best claimed in their order.
     *
     * @param schedule the schedule's name ({@code [A-Za-z0-9_.:-]{1,128}}), stored in full
     * @param slot     the slot's fire time; instants equal to the millisecond are the same slot
     * @param request  the job to enqueue; without a {@link JobRequest#uniqueKey()} (the slot is its identity)
     * @return the job enqueued for the slot, or empty when the slot was already enqueued or is no
     *         later than a pruned slot of the schedule
     */
    Optional<Job> enqueueScheduled(String schedule, java.time.Instant slot, JobRequest request);

    /**
     * Enqueues up to 10,000 jobs in one statement, atomically; results are in request order. A
     * job's refusal names it by its index: {@code IllegalArgumentException("jobs[3].dependsOn: ...")},
     * and nothing is enqueued.
     */
    List<Job> enqueueMany(List<JobRequest> requests);

    /** {@link #enqueueMany(List)} inside the caller's transaction. */
    List<Job> enqueueMany(Connection connection, List<JobRequest> requests);

    Optional<Job> get(UUID id);

    /** Jobs newest first, filtered and paged by {@code query}. */
    JobPage list(JobQuery query);

    /** Events of a job after {@code afterSeq} (0 = from the start), oldest first, at most {@code limit} (1–1000). */
    List<JobEvent> events(UUID id, long afterSeq, int limit);

    /**
     * Like {@link #events}, but waits up to {@code maxWait} for the first new event, woken by the
     * worker (same process) or a notification (PostgreSQL). Returns an empty list on timeout.
     *
     * @throws JobNotFoundException if there is no such job
     */
    List<JobEvent> awaitEvents(UUID id, long afterSeq, int limit, java.time.Duration maxWait)
            throws InterruptedException;

    /**
     * Follows a job until it is terminal ({@code succeeded}, {@code failed}, {@code timed_out},
     * {@code cancelled}) or {@code maxWait} has passed, woken by its events as {@link #awaitEvents}
     * is (no tight polling), and returns it as last read: terminal, unless {@code maxWait} passed
     * first. Works for durable and in-memory jobs alike. Blocks the calling thread; thread-safe.
     *
     * @param maxWait how long to follow at most; a duration too long to count in nanoseconds
     *                (e.g. {@code ChronoUnit.FOREVER.getDuration()}) waits without limit
     * @throws JobNotFoundException if there is no such job, or it was deleted meanwhile
     * @throws InterruptedException if the calling thread is interrupted while it waits
     */
    default Job awaitTerminal(UUID id, java.time.Duration maxWait) throws InterruptedException {
        if (maxWait == null || maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait: must be zero or positive");
        }
        long waitNanos = maxWait.compareTo(java.time.Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE
                : maxWait.toNanos();
        long start = System.nanoTime();
        long afterSeq = 0;
        while (true) {
            Job job = get(id).orElseThrow(() -> new JobNotFoundException(id));
            long left = waitNanos - (System.nanoTime() - start);
            if (job.status().isTerminal() || left <= 0) {
                return job;
            }
            // The terminal status event wakes this wait; an event of any other kind just reads the job again.
            List<JobEvent> seen = awaitEvents(id, afterSeq, 1000,
                    java.time.Duration.ofNanos(Math.min(left, java.util.concurrent.TimeUnit.SECONDS.toNanos(5))));
            if (!seen.isEmpty()) {
                afterSeq = seen.getLast().seq();
            }
        }
    }

    /**
     * Deletes a terminal job and its events.
     *
     * @throws JobNotFoundException if there is no such job
     * @throws JobStateException    if the job is not terminal (cancel it first)
     */
    void delete(UUID id);

    /**
     * Job counts per queue and status (only non-zero ones), from the counts the database keeps
     * beside the jobs (never a count over them: cheap with any amount of history).
     */
    List<QueueCount> count();

    /**
     * Per queue: when its longest-waiting available job became available, and how many jobs
     * finished in each of the last 15 minutes. Durable jobs only; cheap with any amount of history.
     */
    List<QueueActivity> activity();

    /**
     * Cancels a job: waiting or queued jobs become {@code cancelled} at once; a running job gets
     * {@code cancelRequested} and its worker interrupts the handler and records {@code cancelled}.
     *
     * @throws JobNotFoundException if there is no such job
     * @throws JobStateException    if the job is already terminal
     */
    Job cancel(UUID id);

    /**
     * Delivers signal {@code name} with {@code payload} (any value Jackson writes as JSON; {@code
     * null} is JSON null) to a job that is not terminal. A job waiting for it
     * ({@link JobContext#awaitSignal}) runs at once; one that does not wait yet gets it when it
     * does. The first delivery of a name wins. Durable jobs only.
     *
     * @throws IllegalArgumentException naming {@code name} or {@code payload} if either is refused (a
     *                                  payload holding a NUL character or a lone surrogate, as a job's args)
     * @throws JobNotFoundException     if there is no such job (also for an in-memory job)
     * @throws JobStateException        if the job is terminal, or a signal of that name was delivered before
     */
    Job signal(UUID id, String name, Object payload);

    /**
     * Queues one more attempt of a terminal job ({@code attempt} keeps counting).
     *
     * @throws JobNotFoundException if there is no such job
     * @throws JobStateException    if the job is not terminal
     */
    Job retry(UUID id);
}
