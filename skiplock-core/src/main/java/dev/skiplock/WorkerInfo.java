package dev.skiplock;

import java.time.Instant;
import java.util.List;

/**
 * A worker instance as recorded in the registry.
 *
 * @param status {@code active}, {@code stale} (silent longer than its own lease) or {@code stopped}
 */
public record WorkerInfo(
        String id,
        String host,
        long pid,
        List<String> queues,
        int concurrency,
        Instant startedAt,
        Instant lastHeartbeatAt,
        String status) {
}
