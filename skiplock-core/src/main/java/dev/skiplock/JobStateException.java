package dev.skiplock;

/** The job exists but its status does not allow the action (e.g. cancelling a finished job). */
public final class JobStateException extends SkiplockException {
    private final Job job;

    public JobStateException(String message, Job job) {
        super(message);
        this.job = job;
    }

    /** The job as it was when the action was refused. */
    public Job job() {
        return job;
    }
}
