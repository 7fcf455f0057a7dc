package dev.skiplock.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobStatus;
import dev.skiplock.cli.Durations;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One frame of {@code skiplock top}: a header, a queue table (counts by status, and the jobs that
 * reached a terminal status per second since the previous frame) and the live workers. A pure
 * function of two samples, so the frame is the same on a terminal and in a pipe.
 */
final class TopFrame {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

    /** What one refresh read: {@code /api/v1/queues}, and {@code /api/v1/workers} or why it could not. */
    record Sample(Instant at, JsonNode queues, JsonNode workers, String workersError) {
    }

    private TopFrame() {
    }

    static List<String> lines(String server, Duration interval, Sample previous, Sample current) {
        List<String> lines = new ArrayList<>();
        lines.add("skiplock top · " + server + " · " + CLOCK.format(current.at()) + " · every "
                + Durations.format(interval) + " · finished/s since the previous frame");
        lines.add("");
        lines.addAll(queues(previous, current));
        lines.add("");
        if (current.workers() == null) {
            lines.add("workers: " + current.workersError());
            return lines;
        }
        int stopped = 0;
        for (JsonNode worker : current.workers()) {
            stopped += worker.path("status").asText().equals("stopped") ? 1 : 0;
        }
        lines.addAll(WorkersCommand.table(current.workers(), current.at(),
                worker -> !worker.path("status").asText().equals("stopped")));
        if (stopped > 0) {
            lines.add("(" + stopped + " stopped not shown)");
        }
        return lines;
    }

    private static List<String> queues(Sample previous, Sample current) {
        JobStatus[] statuses = JobStatus.values();
        String[] headers = new String[statuses.length + 3];
        headers[0] = "QUEUE";
        headers[1] = "PAUSED";
        for (int i = 0; i < statuses.length; i++) {
            headers[i + 2] = statuses[i].wireName().toUpperCase(Locale.ROOT);
        }
        headers[headers.length - 1] = "FINISHED/S";
        Table table = new Table(headers);
        for (JsonNode queue : current.queues().path("queues")) {
            String[] row = new String[headers.length];
            row[0] = queue.path("name").asText();
            row[1] = queue.path("paused").asBoolean() ? "yes" : "no";
            for (int i = 0; i < statuses.length; i++) {
                row[i + 2] = Long.toString(queue.path("counts").path(statuses[i].wireName()).asLong());
            }
            row[row.length - 1] = throughput(previous, current, row[0]);
            table.row(row);
        }
        return table.lines();
    }

    /** Terminal jobs of {@code queue} gained per second between the samples; "-" without a previous one. */
    private static String throughput(Sample previous, Sample current, String queue) {
        if (previous == null) {
            return "-";
        }
        double seconds = Duration.between(previous.at(), current.at()).toMillis() / 1000.0;
        JsonNode before = find(previous.queues(), queue);
        if (before == null || seconds <= 0) {
            return "-";
        }
        // Retention deletes finished jobs, so a count may fall: a frame never shows a negative rate.
        long gained = Math.max(0, finished(find(current.queues(), queue)) - finished(before));
        return String.format(Locale.ROOT, "%.1f", gained / seconds);
    }

    private static JsonNode find(JsonNode queues, String name) {
        for (JsonNode queue : queues.path("queues")) {
            if (queue.path("name").asText().equals(name)) {
                return queue;
            }
        }
        return null;
    }

    private static long finished(JsonNode queue) {
        long total = 0;
        for (JobStatus status : JobStatus.values()) {
            if (status.isTerminal()) {
                total += queue.path("counts").path(status.wireName()).asLong();
            }
        }
        return total;
    }
}
