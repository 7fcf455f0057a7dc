package dev.skiplock;

import java.time.Instant;
import java.util.List;

/**
 * What one queue has been doing (dashboards, {@code GET /api/v1/queues}): read from small tables the
 * database keeps, never from the job history.
 *
 * @param queue             the queue
 * @param oldestQueuedAt    when its longest-waiting available job became available; {@code null} if none waits
 * @param finishedPerMinute jobs that reached a terminal status in each of the last 15 minutes, oldest
 *                          first (the last entry is the current, partial minute)
 */
public record QueueActivity(String queue, Instant oldestQueuedAt, List<Long> finishedPerMinute) {
    /** Minutes of {@link #finishedPerMinute}. */
    public static final int MINUTES = 15;

    public QueueActivity {
        finishedPerMinute = List.copyOf(finishedPerMinute);
    }
}
