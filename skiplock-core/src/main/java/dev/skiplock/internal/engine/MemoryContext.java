package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.JobContext;
import dev.skiplock.Names;
import java.util.UUID;

/** What the handler of an in-memory job sees: its log lines and progress go to the job's own event log. */
final class MemoryContext<A> implements JobContext<A> {
    private final A args;
    private final Execution execution;
    private final MemoryJob job;

    MemoryContext(A args, Execution execution, MemoryJob job) {
        this.args = args;
        this.execution = execution;
        this.job = job;
    }

    @Override
    public A args() {
        return args;
    }

    @Override
    public Job job() {
        return execution.job();
    }

    @Override
    public UUID executionId() {
        return execution.executionId();
    }

    @Override
    public boolean stopRequested() {
        return execution.stopRequested();
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
