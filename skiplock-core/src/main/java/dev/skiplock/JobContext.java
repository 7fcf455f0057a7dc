package dev.skiplock;

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

    /** True once Skiplock asked this execution to stop (cancel, timeout, lost lease, shutdown). */
    boolean stopRequested();
}
