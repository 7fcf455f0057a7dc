package dev.skiplock.internal;

/**
 * A request refused for a field of one of its jobs, the {@code index}-th of its call: a single
 * enqueue says {@code field: why} (this message), a batch names the job ({@link #inBatch()}), as
 * the service names {@code jobs[i].field}.
 */
public final class RefusedJob extends IllegalArgumentException {
    private final int index;

    public RefusedJob(int index, String message) {
        super(message);
        this.index = index;
    }

    /** {@code refusal} of the {@code index}-th job. */
    public RefusedJob(int index, IllegalArgumentException refusal) {
        super(refusal.getMessage(), refusal);
        this.index = index;
    }

    /** The refusal as a batch says it: {@code jobs[i].field: why}. */
    public IllegalArgumentException inBatch() {
        return new IllegalArgumentException("jobs[" + index + "]." + getMessage(), this);
    }
}
