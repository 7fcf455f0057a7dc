package dev.skiplock.internal.store;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import dev.skiplock.JobStatus;
import java.util.List;
import java.util.UUID;

/**
 * A validated job about to be inserted; {@code runAt} null means "now" on the database clock.
 * {@code status} is {@code queued}, or with dependencies {@code waiting} or (a dependency already
 * failed) {@code failed} with {@code lastError} naming it.
 */
public record NewJob(
        UUID id,
        String tenant,
        String queue,
        String kind,
        JsonNode args,
        JsonNode metadata,
        int priority,
        int maxAttempts,
        Instant runAt,
        Integer timeoutSeconds,
        String uniqueKey,
        List<UUID> dependsOn,
        JobStatus status,
        String lastError) {

    NewJob withStatus(JobStatus newStatus, String newLastError) {
        return new NewJob(id, tenant, queue, kind, args, metadata, priority, maxAttempts, runAt, timeoutSeconds,
                uniqueKey, dependsOn, newStatus, newLastError);
    }
}
