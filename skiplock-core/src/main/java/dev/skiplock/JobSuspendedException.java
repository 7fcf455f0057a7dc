package dev.skiplock;

import java.time.Duration;

/**
 * Thrown by {@link JobContext#sleep} and {@link JobContext#awaitSignal} to end the attempt while
 * the job waits (durably: queued, with no thread and no lease). Let it propagate out of the
 * handler; a handler that catches it anyway still ends with the wait, whatever it returns.
 */
public final class JobSuspendedException extends SkiplockException {
    private final transient Duration wait;

    public JobSuspendedException(String message, Duration wait) {
        super(message);
        this.wait = wait;
    }

    /** How long the job waits at most before it runs again. */
    public Duration waitDuration() {
        return wait;
    }
}
