package dev.skiplock;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A job as stored. Immutable snapshot: read it again with {@link JobClient#get} to see later changes.
 *
 * @param timeoutSeconds per-attempt time limit, or {@code null} for none
 * @param lockedBy       the worker holding the lease while {@code running}, else {@code null}
 * @param lockedUntil    the lease deadline (database clock), else {@code null}
 * @param progress       the last value the handler reported with {@link JobContext#progress}, else {@code null}
 */
public record Job(
        UUID id,
        String tenant,
        String queue,
        String kind,
        JsonNode args,
        JsonNode metadata,
        int priority,
        JobStatus status,
        int attempt,
        int maxAttempts,
        Instant availableAt,
        Instant requestedAt,
        Instant startedAt,
        Instant finishedAt,
        Integer timeoutSeconds,
        String uniqueKey,
        List<UUID> dependsOn,
        boolean cancelRequested,
        JsonNode progress,
        JsonNode result,
        String lastError,
        String lockedBy,
        Instant lockedUntil) {
}
