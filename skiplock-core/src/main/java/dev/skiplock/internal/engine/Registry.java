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
     * Executions whose outcome is not yet the completer's: the handler runs, commits its job's
     * outcome in its own transaction, or has returned and not yet handed its outcome over (it ends
     * its span first). A shutdown waits for them all: one that counted only running and committing
     * handlers stopped the completer while an outcome was on its way to it, which was then lost.
     */
    long handlersOutstanding() {
        return executions.values().stream().filter(Execution::outcomeOutstanding).count();
    }

    boolean isEmpty() {
        return executions.isEmpty();
    }
}
