package dev.skiplock.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobStatus;
import dev.skiplock.RetryPolicy;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.HeldAttempt;

/** Turns what happened to an attempt into the {@link Completion} to write (DESIGN §3). */
final class Outcomes {
    /** {@code last_error} keeps a summary, never a stack trace or an unbounded message. */
    static final int MAX_ERROR_LENGTH = 2000;

    private final RetryPolicy defaultPolicy;

    Outcomes(RetryPolicy defaultPolicy) {
        this.defaultPolicy = defaultPolicy;
    }

    Completion fromHandler(Job job, JobOutcome outcome, RetryPolicy kindPolicy) {
        HeldAttempt attempt = held(job);
        return switch (outcome) {
            case null -> new Completion(attempt, JobStatus.SUCCEEDED, 0, null, null, 0);
            case JobOutcome.Complete complete -> succeeded(job, complete.result(), kindPolicy);
            case JobOutcome.Snooze snooze ->
                    new Completion(attempt, JobStatus.QUEUED, snooze.delay().toMillis(), null, null, 1);
            case JobOutcome.Cancel cancel ->
                    new Completion(attempt, JobStatus.CANCELLED, 0, null, truncate(cancel.reason()), 0);
            case JobOutcome.Fail fail -> failed(job, fail.reason(), kindPolicy);
        };
    }

    private Completion succeeded(Job job, Object result, RetryPolicy kindPolicy) {
        JsonNode node;
        try {
            node = result == null ? null : Json.MAPPER.valueToTree(result);
        } catch (IllegalArgumentException e) {
            return failed(job, "result cannot be written as JSON: " + e.getMessage(), kindPolicy);
        }
        return new Completion(held(job), JobStatus.SUCCEEDED, 0, node, null, 0);
    }

    /** The handler threw: retried while attempts remain. */
    Completion fromException(Job job, Throwable error, RetryPolicy kindPolicy) {
        return failed(job, describe(error), kindPolicy);
    }

    /** Failed with no retry: the job can never succeed as enqueued (no handler, unreadable args). */
    Completion permanentFailure(Job job, String message) {
        return new Completion(held(job), JobStatus.FAILED, 0, null, truncate(message), 0);
    }

    Completion timedOut(Job job, RetryPolicy kindPolicy) {
        String message = "timed out after " + job.timeoutSeconds() + "s in attempt " + job.attempt();
        return retryOr(job, JobStatus.TIMED_OUT, message, kindPolicy);
    }

    Completion cancelled(Job job) {
        return new Completion(held(job), JobStatus.CANCELLED, 0, null, "cancelled while running", 0);
    }

    /** An orphan adopted from a dead worker: an in-process execution died with its JVM. */
    Completion orphaned(Job job, RetryPolicy kindPolicy) {
        if (job.cancelRequested()) {
            return new Completion(held(job), JobStatus.CANCELLED, 0, null, "cancelled; its worker was lost", 0);
        }
        String message = "worker lost during attempt " + job.attempt() + " (lease expired)";
        return retryOr(job, JobStatus.FAILED, message, kindPolicy);
    }

    private Completion failed(Job job, String message, RetryPolicy kindPolicy) {
        return retryOr(job, JobStatus.FAILED, message, kindPolicy);
    }

    private Completion retryOr(Job job, JobStatus finalStatus, String message, RetryPolicy kindPolicy) {
        if (job.attempt() < job.maxAttempts()) {
            RetryPolicy policy = kindPolicy != null ? kindPolicy : defaultPolicy;
            long delay = policy.delayAfter(job.attempt()).toMillis();
            return new Completion(held(job), JobStatus.QUEUED, delay, null, truncate(message), 0);
        }
        return new Completion(held(job), finalStatus, 0, null, truncate(message), 0);
    }

    static String describe(Throwable error) {
        String message = error.getMessage();
        return error.getClass().getName() + (message == null ? "" : ": " + message);
    }

    private static String truncate(String message) {
        if (message == null || message.length() <= MAX_ERROR_LENGTH) {
            return message;
        }
        return message.substring(0, MAX_ERROR_LENGTH) + "…";
    }

    private static HeldAttempt held(Job job) {
        return new HeldAttempt(job.id(), job.attempt());
    }
}
