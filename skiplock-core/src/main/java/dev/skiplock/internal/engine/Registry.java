package dev.skiplock.internal.engine;

import dev.skiplock.internal.store.HeldAttempt;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/** The attempts this worker holds leases for: claimed and not yet durably finalized. Thread-safe. */
final class Registry {
    private final ConcurrentHashMap<HeldAttempt, Execution> executions = new ConcurrentHashMap<>();

    void add(Execution execution) {
        executions.put(execution.attempt(), execution);
    }

    /** The attempt is no longer held: its outcome is durable or dropped, or its lease is gone. */
    void remove(Execution execution) {
        executions.remove(execution.attempt(), execution);
        execution.releaseHold();
    }

    List<Execution> snapshot() {
        return new ArrayList<>(executions.values());
    }

    Execution get(HeldAttempt attempt) {
        return executions.get(attempt);
    }

    /** Executions of this job whose handler is still running (normally at most one). */
    List<Execution> runningOf(UUID jobId) {
        List<Execution> found = new ArrayList<>();
        for (Execution execution : executions.values()) {
            if (execution.attempt().id().equals(jobId) && execution.isRunning()) {
                found.add(execution);
            }
        }
        return found;
    }

    /**
     * Executions whose handler has not returned: running, or committing its job's outcome in its own
     * transaction (a shutdown waits for both).
     */
    long handlersOutstanding() {
        return executions.values().stream().filter(execution -> execution.isRunning() || execution.isCommitting())
                .count();
    }

    boolean isEmpty() {
        return executions.isEmpty();
    }
}
