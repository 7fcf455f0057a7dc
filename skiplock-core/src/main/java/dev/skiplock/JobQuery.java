package dev.skiplock;

import java.util.UUID;

/**
 * Filter for {@link JobClient#list}: newest first, {@code limit} 1–500, continue with {@code cursor}
 * (the {@link JobPage#nextCursor()} of the previous page). {@code null} filters match everything.
 */
public record JobQuery(JobStatus status, String queue, String kind, int limit, UUID cursor) {
    public static final int DEFAULT_LIMIT = 50;
    public static final int MAX_LIMIT = 500;

    public JobQuery {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit: must be between 1 and " + MAX_LIMIT + ", got " + limit);
        }
        if (queue != null) {
            Names.check("queue", queue);
        }
        if (kind != null) {
            Names.check("kind", kind);
        }
    }

    /** Every job, first page of {@value #DEFAULT_LIMIT}. */
    public static JobQuery all() {
        return new JobQuery(null, null, null, DEFAULT_LIMIT, null);
    }

    public JobQuery withStatus(JobStatus newStatus) {
        return new JobQuery(newStatus, queue, kind, limit, cursor);
    }

    public JobQuery withQueue(String newQueue) {
        return new JobQuery(status, newQueue, kind, limit, cursor);
    }

    public JobQuery withKind(String newKind) {
        return new JobQuery(status, queue, newKind, limit, cursor);
    }

    public JobQuery withLimit(int newLimit) {
        return new JobQuery(status, queue, kind, newLimit, cursor);
    }

    public JobQuery withCursor(UUID newCursor) {
        return new JobQuery(status, queue, kind, limit, newCursor);
    }
}
