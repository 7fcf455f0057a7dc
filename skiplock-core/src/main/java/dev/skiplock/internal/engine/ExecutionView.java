package dev.skiplock.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobContext;
import dev.skiplock.SkiplockConfig;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * What every handler context answers from its {@link Execution}: the args, the job as claimed, the
 * execution's id, whether it was asked to stop, and its steps and sleeps ({@link Steps}, over the
 * checkpoint store the subclass gives). Durable ({@link ExecutionContext}) and in-memory
 * ({@link MemoryContext}) contexts add where checkpoints, logs and progress go, and resumption.
 */
abstract class ExecutionView<A> implements JobContext<A> {
    private final A args;
    protected final Execution execution;
    /** This execution's checkpoints, kept where the subclass's store keeps them. */
    protected final Steps steps;

    ExecutionView(A args, Execution execution, Steps.Store checkpoints, SkiplockConfig limits) {
        this.args = args;
        this.execution = execution;
        this.steps = new Steps(execution, checkpoints, limits);
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

    @Override
    public <T> T step(String name, Class<T> type, StepBody<? extends T> body) throws Exception {
        return steps.step(name, type, body);
    }

    @Override
    public Map<String, JsonNode> steps() {
        return steps.finished();
    }

    @Override
    public void sleep(String name, Duration duration) {
        steps.sleep(name, duration);
    }
}
