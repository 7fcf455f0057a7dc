package dev.skiplock;

import java.util.Optional;
import java.util.UUID;

/**
 * A handler whose executions outlive the worker that started them, such as an OS process with a
 * deterministic identity (job id + {@link JobContext#executionId()}) and its output kept on disk. When a worker dies, the
 * worker that adopts its job (DESIGN §2, adoption) calls {@link #resume} instead of counting the
 * attempt as lost, so the work is neither lost nor started twice.
 *
 * @param <A> the type the job's JSON args are read into
 */
public interface ResumableHandler<A> extends JobHandler<A> {
    /**
     * Finds the execution {@code context.executionId()} of {@code context.job()}, started by another
     * worker (or by this one before it was paused past its lease).
     * Returns its outcome when it already finished; waits for it when it still runs (Skiplock keeps
     * the lease alive meanwhile, and a cancel or timeout interrupts this thread as in
     * {@link #handle}); returns empty when it does not exist, and Skiplock then retries or fails
     * the attempt per its retry policy.
     */
    Optional<JobOutcome> resume(JobContext<A> context) throws Exception;

    /**
     * The outcome of execution {@code executionId} of job {@code jobId} is durable: whatever the
     * execution left behind for a later {@link #resume} may be removed. Called on the worker that wrote it,
     * on a thread of its own: a slow clean-up holds no other job's outcome.
     */
    default void completed(UUID jobId, UUID executionId) {
        settled(jobId, executionId);
    }

    /**
     * The earlier name of {@link #completed}, still called by its default so that a handler written
     * against it keeps cleaning up ("settle" now means a waiting job whose dependencies ended).
     *
     * @deprecated override {@link #completed} instead
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    default void settled(UUID jobId, UUID executionId) {
    }
}
