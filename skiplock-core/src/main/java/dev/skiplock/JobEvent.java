package dev.skiplock;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.UUID;

/**
 * One entry of a job's append-only event log (API.md "Event JSON").
 *
 * @param seq    increasing across all events; resume a stream after the last seq seen
 * @param type   {@code status}, {@code log}, {@code progress} or {@code step}
 * @param status with {@code status} events: the new status
 * @param stream with {@code log} events: {@code stdout}, {@code stderr} or a name the handler chose
 * @param data   with {@code progress} events: the progress value
 */
public record JobEvent(
        long seq,
        Instant ts,
        UUID jobId,
        int attempt,
        String type,
        String status,
        String step,
        String stream,
        String message,
        JsonNode data) {

    /** True for the status event that ends a job's stream. */
    public boolean isTerminal() {
        return "status".equals(type) && status != null && JobStatus.fromWireName(status).isTerminal();
    }
}
