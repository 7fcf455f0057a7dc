package dev.skiplock.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.RetryPolicy;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.StorableText;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.HeldAttempt;

/** Turns what happened to an attempt into the {@link Completion} to write (DESIGN §3). */
final class Outcomes {
    /** {@code last_error} keeps a summary, never a stack trace or an unbounded message. */
    static final int MAX_ERROR_LENGTH = 2000;
    /** The error of a job cancelled while its handler ran. */
    static final String CANCELLED_WHILE_RUNNING = "cancelled while running";

    private final RetryPolicy defaultPolicy;
    private final java.time.Duration defaultTimeout;

    /** {@code defaultTimeout}: the limit of a job that sets none ({@code SkiplockConfig.defaultTimeout}), or null. */
    Outcomes(RetryPolicy defaultPolicy, java.time.Duration defaultTimeout) {
        this.defaultPolicy = defaultPolicy;
        this.defaultTimeout = defaultTimeout;
    }

    Completion fromHandler(Execution execution, JobOutcome outcome, RetryPolicy kindPolicy) {
        HeldAttempt attempt = execution.attempt();
        return switch (outcome) {
            case null -> new Completion(attempt, JobStatus.SUCCEEDED, 0, null, null, 0);
            case JobOutcome.Complete complete -> succeeded(execution, complete.result(), kindPolicy);
            case JobOutcome.Snooze snooze ->
                    new Completion(attempt, JobStatus.QUEUED, snooze.delay().toMillis(), null, null, 1);
            case JobOutcome.Cancel cancel ->
                    new Completion(attempt, JobStatus.CANCELLED, 0, null, truncate(cancel.reason()), 0);
            case JobOutcome.Fail fail -> failed(execution, fail.reason(), kindPolicy);
        };
    }

    private Completion succeeded(Execution execution, Object result, RetryPolicy kindPolicy) {
        JsonNode node;
        try {
            node = result == null ? null : StorableText.of((JsonNode) Json.MAPPER.valueToTree(result));
        } catch (IllegalArgumentException e) {
            return failed(execution, "result cannot be written as JSON: " + e.getMessage(), kindPolicy);
        }
        if (StorableText.deeperThan(node, JobRequest.MAX_NESTING)) {
            // a job list holding it could not be written (JobRequest.MAX_NESTING)
            return failed(execution, "result: nests arrays and objects deeper than " + JobRequest.MAX_NESTING
                    + " levels", kindPolicy);
        }
        return new Completion(execution.attempt(), JobStatus.SUCCEEDED, 0, node, null, 0);
    }

    /**
     * A durable wait ({@code sleep}, {@code awaitSignal}): queued again after {@code wait} without
     * using up an attempt, as a snooze.
     */
    Completion suspended(Execution execution, Execution.Suspension wait) {
        return new Completion(execution.attempt(), JobStatus.QUEUED, wait.delay().toMillis(), null, null, 1,
                wait.signal());
    }

    /** The handler threw: retried while attempts remain. */
    Completion fromException(Execution execution, Throwable error, RetryPolicy kindPolicy) {
        return failed(execution, describe(error), kindPolicy);
    }

    /** Failed with no retry: the job can never succeed as enqueued (no handler, unreadable args). */
    Completion permanentFailure(Execution execution, String message) {
        return new Completion(execution.attempt(), JobStatus.FAILED, 0, null, truncate(message), 0);
    }

    Completion timedOut(Execution execution, RetryPolicy kindPolicy) {
        Job job = execution.job();
        // the job's own limit, or the worker's default for a job that set none
        java.time.Duration limit = Timeouts.limitOf(job, defaultTimeout);
        String message = "timed out after " + (limit == null ? "its limit" : limit.toSeconds() + "s") + " in attempt "
                + job.attempt();
        return retryOr(execution, JobStatus.TIMED_OUT, message, kindPolicy);
    }

    Completion cancelled(Execution execution) {
        return new Completion(execution.attempt(), JobStatus.CANCELLED, 0, null, CANCELLED_WHILE_RUNNING, 0);
    }

    Completion cancelledBeforeStart(Execution execution) {
        return new Completion(execution.attempt(), JobStatus.CANCELLED, 0, null, "cancelled before its handler started", 0);
    }

    /** An orphan adopted from a dead worker: an in-process execution died with its JVM. */
    Completion orphaned(Execution execution, RetryPolicy kindPolicy) {
        Job job = execution.job();
        if (job.cancelRequested()) {
            return new Completion(execution.attempt(), JobStatus.CANCELLED, 0, null, "cancelled; its worker was lost", 0);
        }
        String message = "worker lost during attempt " + job.attempt() + " (lease expired)";
        return retryOr(execution, JobStatus.FAILED, message, kindPolicy);
    }

    private Completion failed(Execution execution, String message, RetryPolicy kindPolicy) {
        return retryOr(execution, JobStatus.FAILED, message, kindPolicy);
    }

    private Completion retryOr(Execution execution, JobStatus finalStatus, String message, RetryPolicy kindPolicy) {
        Job job = execution.job();
        if (job.attempt() < job.maxAttempts()) {
            RetryPolicy policy = kindPolicy != null ? kindPolicy : defaultPolicy;
            // The failures so far: a snooze or a durable wait used no attempt, nor counts toward the backoff.
            long delay = policy.delayAfter(job.attempt() - execution.snoozes()).toMillis();
            return new Completion(execution.attempt(), JobStatus.QUEUED, delay, null, truncate(message), 0);
        }
        return new Completion(execution.attempt(), finalStatus, 0, null, truncate(message), 0);
    }

    /**
     * The error's class and message. The message is the handler's data: one that cannot be read
     * (its {@code getMessage} throws) is named as such, and the attempt still gets its outcome.
     */
    static String describe(Throwable error) {
        String message;
        try {
            message = error.getMessage();
        } catch (Throwable unreadable) {
            message = "(its message could not be read: " + unreadable.getClass().getName() + ")";
        }
        return error.getClass().getName() + (message == null ? "" : ": " + message);
    }

    /** A summary that every database can store (see {@link StorableText}). */
    static String truncate(String message) {
        if (message == null || message.length() <= MAX_ERROR_LENGTH) {
            return StorableText.of(message);
        }
        return StorableText.of(message.substring(0, MAX_ERROR_LENGTH) + "…");
    }
}
