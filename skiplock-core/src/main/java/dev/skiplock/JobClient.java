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

    /** Enqueues one job in its own transaction; returns it, or the live job holding its unique key. */
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
     * job history ({@link SkiplockConfig#retention()}), but kept at least a day, so a scheduler whose
     * clock is behind by less than that still finds the slot taken.
     *
     * @param schedule the schedule's name ({@code [A-Za-z0-9_.:-]{1,128}}), stored in full
     * @param slot     the slot's fire time; instants equal to the millisecond are the same slot
     * @param request  the job to enqueue; without a {@link JobRequest#uniqueKey()} (the slot is its identity)
     * @return the job enqueued for the slot, or empty when the slot was already enqueued
     */
    Optional<Job> enqueueScheduled(String schedule, java.time.Instant slot, JobRequest request);

    /** Enqueues up to 10,000 jobs in one statement, atomically; results are in request order. */
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
     * Deletes a terminal job and its events.
     *
     * @throws JobNotFoundException if there is no such job
     * @throws JobStateException    if the job is not terminal (cancel it first)
     */
    void delete(UUID id);

    /** Job counts per queue and status (only non-zero ones). Scans the tenant's jobs: not for hot paths. */
    List<QueueCount> count();

    /**
     * Cancels a job: waiting or queued jobs become {@code cancelled} at once; a running job gets
     * {@code cancelRequested} and its worker interrupts the handler and records {@code cancelled}.
     *
     * @throws JobNotFoundException if there is no such job
     * @throws JobStateException    if the job is already terminal
     */
    Job cancel(UUID id);

    /**
     * Queues one more attempt of a terminal job ({@code attempt} keeps counting).
     *
     * @throws JobNotFoundException if there is no such job
     * @throws JobStateException    if the job is not terminal
     */
    Job retry(UUID id);
}
