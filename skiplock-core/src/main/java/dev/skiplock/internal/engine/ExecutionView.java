package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.JobContext;
import java.util.UUID;

/**
 * What every handler context answers from its {@link Execution} alone: the args, the job as claimed,
 * the execution's id and whether it was asked to stop. Durable ({@link ExecutionContext}) and
 * in-memory ({@link MemoryContext}) contexts add where logs, progress and resumption go.
 */
abstract class ExecutionView<A> implements JobContext<A> {
    private final A args;
    protected final Execution execution;

    ExecutionView(A args, Execution execution) {
        this.args = args;
        this.execution = execution;
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
}
