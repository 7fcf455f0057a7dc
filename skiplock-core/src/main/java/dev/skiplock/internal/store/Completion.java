package dev.skiplock.internal.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobStatus;

/**
 * The outcome of one attempt, to be written fenced on {@code (id, attempt, locked_by)}.
 *
 * @param status        the new status: a terminal one, or {@code queued} for a retry or snooze
 * @param delayMillis   with {@code queued}: how long until the job is claimable again
 * @param extraAttempts added to {@code max_attempts} (1 for a snooze, which must not use up an attempt)
 * @param awaitedSignal with a wait for a signal: its name. The job runs at once if the signal came
 *                      while it still ran ({@code wake_for_signal} in the same transaction)
 */
public record Completion(
        HeldAttempt attempt,
        JobStatus status,
        long delayMillis,
        JsonNode result,
        String error,
        int extraAttempts,
        String awaitedSignal) {

    public Completion(HeldAttempt attempt, JobStatus status, long delayMillis, JsonNode result, String error,
            int extraAttempts) {
        this(attempt, status, delayMillis, result, error, extraAttempts, null);
    }
}
