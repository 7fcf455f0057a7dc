package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops executions from outside their handler (cancel, timeout, lost lease, shutdown) and hands
 * the outcome a stop decides to the completer. Called by the heartbeat, the timeouts, the runner
 * and the notifications; calls nothing of theirs back.
 */
final class Stopper {
    private static final Logger LOG = LoggerFactory.getLogger(Stopper.class);

    private final Registry registry;
    private final Outcomes outcomes;
    private final Handlers handlers;
    private final Completer completer;
    private final Counters counters;

    Stopper(Registry registry, Outcomes outcomes, Handlers handlers, Completer completer, Counters counters) {
        this.registry = registry;
        this.outcomes = outcomes;
        this.handlers = handlers;
        this.completer = completer;
        this.counters = counters;
    }

    /** Stops every execution of {@code jobId} this worker still runs. */
    void stopRunning(UUID jobId, Execution.StopReason reason) {
        registry.runningOf(jobId).forEach(execution -> stop(execution, reason));
    }

    /**
     * Ends cancelled an execution whose handler has not started: its job's cancel was requested
     * before the worker read its row (SQLite reads a claim's rows after its commit).
     */
    void cancelBeforeStart(Execution execution) {
        if (execution.stop(Execution.StopReason.CANCEL)) {
            completer.submit(execution, outcomes.cancelledBeforeStart(execution));
            execution.releaseSlot();
        }
    }

    /** Stops an execution for {@code reason}; only the first stop or outcome of an attempt counts. */
    void stop(Execution execution, Execution.StopReason reason) {
        if (!execution.stop(reason)) {
            return;
        }
        Job job = execution.job();
        switch (reason) {
            case CANCEL -> completer.submit(execution, outcomes.cancelled(execution));
            case TIMEOUT -> completer.submit(execution, outcomes.timedOut(execution, handlers.retryPolicyOf(job)));
            case LEASE_LOST -> {
                counters.leaseLost(job);
                registry.remove(execution);
                LOG.warn("job {} attempt {} lost its lease; its execution was stopped", job.id(), job.attempt());
            }
            case SHUTDOWN -> {
                return; // the hold and the lease are given back by Engine.close()
            }
        }
        execution.releaseSlot();
    }
}
