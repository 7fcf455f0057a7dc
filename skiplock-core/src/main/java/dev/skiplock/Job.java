package dev.skiplock;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A job as stored. Immutable snapshot: read it again with {@link JobClient#get} to see later changes.
 * Build one by name with {@link #builder()} or {@link #toBuilder()}; the store reads and writes every
 * component through one column list, so a new component is one line here and one column there.
 *
 * @param traceparent    the W3C trace context current when the job was enqueued, or {@code null}
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
        String traceparent,
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

    public Job {
        dependsOn = dependsOn == null ? List.of() : List.copyOf(dependsOn);
    }

    /** An empty builder: every component {@code null}, zero or false until set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this job's components, to change some of them by name. */
    public Builder toBuilder() {
        return new Builder().id(id).tenant(tenant).queue(queue).kind(kind).args(args).metadata(metadata)
                .traceparent(traceparent).priority(priority).status(status).attempt(attempt)
                .maxAttempts(maxAttempts).availableAt(availableAt).requestedAt(requestedAt).startedAt(startedAt)
                .finishedAt(finishedAt).timeoutSeconds(timeoutSeconds).uniqueKey(uniqueKey).dependsOn(dependsOn)
                .cancelRequested(cancelRequested).progress(progress).result(result).lastError(lastError)
                .lockedBy(lockedBy).lockedUntil(lockedUntil);
    }

    /** Builds a {@link Job} by component name. Not thread-safe. */
    public static final class Builder {
        private UUID id;
        private String tenant;
        private String queue;
        private String kind;
        private JsonNode args;
        private JsonNode metadata;
        private String traceparent;
        private int priority;
        private JobStatus status;
        private int attempt;
        private int maxAttempts;
        private Instant availableAt;
        private Instant requestedAt;
        private Instant startedAt;
        private Instant finishedAt;
        private Integer timeoutSeconds;
        private String uniqueKey;
        private List<UUID> dependsOn = List.of();
        private boolean cancelRequested;
        private JsonNode progress;
        private JsonNode result;
        private String lastError;
        private String lockedBy;
        private Instant lockedUntil;

        private Builder() {
        }

        public Builder id(UUID value) { id = value; return this; }
        public Builder tenant(String value) { tenant = value; return this; }
        public Builder queue(String value) { queue = value; return this; }
        public Builder kind(String value) { kind = value; return this; }
        public Builder args(JsonNode value) { args = value; return this; }
        public Builder metadata(JsonNode value) { metadata = value; return this; }
        public Builder traceparent(String value) { traceparent = value; return this; }
        public Builder priority(int value) { priority = value; return this; }
        public Builder status(JobStatus value) { status = value; return this; }
        public Builder attempt(int value) { attempt = value; return this; }
        public Builder maxAttempts(int value) { maxAttempts = value; return this; }
        public Builder availableAt(Instant value) { availableAt = value; return this; }
        public Builder requestedAt(Instant value) { requestedAt = value; return this; }
        public Builder startedAt(Instant value) { startedAt = value; return this; }
        public Builder finishedAt(Instant value) { finishedAt = value; return this; }
        public Builder timeoutSeconds(Integer value) { timeoutSeconds = value; return this; }
        public Builder uniqueKey(String value) { uniqueKey = value; return this; }
        public Builder dependsOn(List<UUID> value) { dependsOn = value; return this; }
        public Builder cancelRequested(boolean value) { cancelRequested = value; return this; }
        public Builder progress(JsonNode value) { progress = value; return this; }
        public Builder result(JsonNode value) { result = value; return this; }
        public Builder lastError(String value) { lastError = value; return this; }
        public Builder lockedBy(String value) { lockedBy = value; return this; }
        public Builder lockedUntil(Instant value) { lockedUntil = value; return this; }

        public Job build() {
            return new Job(id, tenant, queue, kind, args, metadata, traceparent, priority, status, attempt,
                    maxAttempts, availableAt, requestedAt, startedAt, finishedAt, timeoutSeconds, uniqueKey,
                    dependsOn, cancelRequested, progress, result, lastError, lockedBy, lockedUntil);
        }
    }
}
