package dev.skiplock.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Names;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.store.StepStore;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What the handler of an in-memory job sees: its log lines, progress and checkpoints go to the
 * job's own memory. Steps and sleeps work as for a durable job within this process (a retry or
 * the end of a sleep skips finished steps); what needs the database is refused: signals (no
 * process but this one could deliver them durably), the handler's own transaction and completion
 * in it (the job has no row), and there are no parents (in-memory jobs take no dependencies).
 */
final class MemoryContext<A> extends ExecutionView<A> {
    private final MemoryJob job;

    MemoryContext(A args, Execution execution, MemoryJob job, SkiplockConfig config) {
        super(args, execution, new MemoryCheckpoints(execution, job), config);
        this.job = job;
    }

    /** Nothing outlives an in-memory execution: no other worker will ever resume it. */
    @Override
    public boolean mayBeResumed() {
        return false;
    }

    @Override
    public void log(String stream, String message) {
        job.log(execution, Names.check("stream", stream), message == null ? "" : message);
    }

    @Override
    public boolean progress(Object data) {
        return job.progress(execution, data);
    }

    @Override
    public Optional<JsonNode> awaitSignal(String name, Duration timeout) {
        throw new UnsupportedOperationException("awaitSignal: an in-memory job cannot wait for a signal;"
                + " enqueue it durable (durable: true) to use signals");
    }

    @Override
    public Map<UUID, JsonNode> parentResults() {
        return Map.of(); // in-memory jobs take no dependsOn
    }

    @Override
    public <T> T inTransaction(TransactionWork<T> work) {
        throw new UnsupportedOperationException("inTransaction: an in-memory job has no database;"
                + " enqueue it durable (durable: true) to work in its transaction");
    }

    @Override
    public void completeInTransaction(Connection connection, Object result) {
        throw new UnsupportedOperationException("completeInTransaction: an in-memory job has no row to complete;"
                + " enqueue it durable (durable: true), or return the result");
    }

    /** This job's checkpoints in its own memory; a write of an attempt no longer running is refused. */
    private record MemoryCheckpoints(Execution execution, MemoryJob job) implements Steps.Store {
        @Override
        public Map<String, StepStore.Checkpoint> load() {
            return job.checkpoints();
        }

        @Override
        public StepStore.Recorded record(String name, StepStore.Kind kind, String outputJson, Long waitMillis,
                String eventStatus) {
            return job.recordStep(execution, name, kind, outputJson, waitMillis, eventStatus)
                    ? StepStore.Recorded.written(outputJson) : StepStore.Recorded.FENCED;
        }

        @Override
        public void event(String name, String status, String message) {
            job.stepEvent(execution, name, status, message);
        }

        @Override
        public Optional<JsonNode> signal(String name) {
            return Optional.empty();
        }
    }
}
