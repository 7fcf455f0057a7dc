package dev.skiplock.internal.engine;

import dev.skiplock.Names;

/** What the handler of an in-memory job sees: its log lines and progress go to the job's own event log. */
final class MemoryContext<A> extends ExecutionView<A> {
    private final MemoryJob job;

    MemoryContext(A args, Execution execution, MemoryJob job) {
        super(args, execution);
        this.job = job;
    }

    /** Nothing outlives an in-memory execution: no other worker will ever resume it. */
    @Override
    public boolean mayBeResumed() {
        return false;
    }

    @Override
    public void log(String stream, String message) {
        job.log(Names.check("stream", stream), message == null ? "" : message);
    }

    @Override
    public boolean progress(Object data) {
        return job.progress(execution, data);
    }
}
