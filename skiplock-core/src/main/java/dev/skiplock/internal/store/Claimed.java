package dev.skiplock.internal.store;

import dev.skiplock.Job;
import java.util.UUID;

/**
 * A job this worker now holds, from {@code claim_jobs} or {@code adopt_orphans}.
 *
 * @param lease         the attempt and the token of this worker's lease
 * @param executionId   the token of the claim that started the execution, kept through adoptions
 * @param elapsedMillis how long the attempt has run, by the database clock (0 for a fresh claim)
 * @param snoozes       how many of the job's earlier attempts ended in a snooze or a durable wait:
 *                      the retry backoff counts only the others (its row's {@code snoozes}, migration 0032)
 */
public record Claimed(Job job, HeldAttempt lease, UUID executionId, long elapsedMillis, int snoozes) {
}
