package dev.skiplock;

import java.util.UUID;

/**
 * What a handler sees of its job: the typed args and the job row as claimed.
 *
 * @param <A> the args type registered with the handler
 */
public interface JobContext<A> {
    /** The job's args, read into the handler's args type. */
    A args();

    /** The job as it was when this attempt was claimed ({@code status} is {@code running}). */
    Job job();

    /** This attempt's number, 1 for the first run. */
    default int attempt() {
        return job().attempt();
    }

    /**
     * Identifies this execution: the token of the claim that started it, the same for the worker
     * that started it and every worker that adopts it, and never reused, not even by a claim that
     * a database crash lost and that was made again. A {@link ResumableHandler} names what it
     * keeps for adoption after it (a command's run directory).
     */
    UUID executionId();

    /** True once Skiplock asked this execution to stop (cancel, timeout, lost lease, shutdown). */
    boolean stopRequested();

    /**
     * True once this execution was stopped because its lease was lost (its worker was presumed dead
     * and the job reaped): another worker may adopt the same attempt, so an execution that outlives
     * its worker (a {@link ResumableHandler}'s process) must be left running, not killed.
     */
    default boolean leaseLost() {
        return false;
    }

    /**
     * After this execution lost its lease: whether another worker may still adopt and resume it
     * (the job is running and still names this execution). False once none ever will: the job was
     * retried or finished elsewhere, or the claim that started this execution was lost in a
     * database crash and the job claimed again. Reads the database; true when it cannot tell.
     */
    default boolean mayBeResumed() {
        return true;
    }

    /**
     * How many {@code log} lines of this attempt are already recorded for {@code stream}: a
     * {@link ResumableHandler} resuming another worker's execution continues its output after them.
     */
    default long loggedLines(String stream) {
        return 0;
    }

    /**
     * Appends a {@code log} event (e.g. stream {@code stdout}). Buffered and written in order with
     * the job's outcome, so a follower sees every line before the terminal status. Thread-safe.
     */
    void log(String stream, String message);

    /**
     * Records progress (any JSON value): stored on the job and appended as a {@code progress}
     * event. Written at once, fenced like the outcome; returns false if the attempt lost its lease.
     */
    boolean progress(Object data);
}
