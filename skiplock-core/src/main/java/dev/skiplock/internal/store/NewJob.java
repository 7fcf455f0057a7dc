package dev.skiplock.internal.store;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.UUID;

/** A validated job about to be inserted; {@code runAt} null means "now" on the database clock. */
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
        String uniqueKey) {
}
