package dev.skiplock;

/**
 * Runs jobs of one kind. Called on a virtual thread; the thread is interrupted when the job is
 * cancelled, times out, loses its lease or the worker shuts down, so blocking calls end early.
 *
 * @param <A> the type the job's JSON args are read into
 */
@FunctionalInterface
public interface JobHandler<A> {
    JobOutcome handle(JobContext<A> context) throws Exception;
}
