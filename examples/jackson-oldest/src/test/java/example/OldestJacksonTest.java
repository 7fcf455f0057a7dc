package example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.PackageVersion;
import dev.skiplock.Job;
import dev.skiplock.JobEvent;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The library's main paths on the oldest Jackson the README claims: args, results, steps, events, in-memory jobs. */
class OldestJacksonTest {
    record Order(String id, List<Integer> items, Instant placedAt) {
    }

    @Test
    void theLibraryRunsOnTheOldestSupportedJackson(@TempDir Path dir) throws Exception {
        assertEquals(System.getProperty("oldest.jackson.version"), PackageVersion.VERSION.toString());
        try (Skiplock skiplock = Skiplock.builder().url("jdbc:sqlite:" + dir.resolve("jobs.db"))
                .config(SkiplockConfig.builder().queue("default", 2).build())
                .handler("order.ship", Order.class, context -> {
                    Order order = context.args();
                    int total = context.step("count", Integer.class, () -> order.items().stream().mapToInt(i -> i).sum());
                    context.progress(Map.of("counted", total));
                    context.log("stdout", "shipping " + order.id());
                    return JobOutcome.complete(Map.of("order", order.id(), "total", total, "placedAt", order.placedAt()));
                })
                .build()) {
            skiplock.start();
            Instant placed = Instant.parse("2026-11-26T10:15:30Z");
            Job durable = skiplock.enqueue(JobRequest.of("order.ship", new Order("o-1", List.of(1, 2, 3), placed)));
            Job inMemory = skiplock.enqueue(JobRequest.of("order.ship", new Order("o-2", List.of(4), placed)).withDurable(false));

            Job done = skiplock.awaitTerminal(durable.id(), Duration.ofMinutes(1));
            Job doneInMemory = skiplock.awaitTerminal(inMemory.id(), Duration.ofMinutes(1));

            assertEquals(JobStatus.SUCCEEDED, done.status());
            JsonNode result = done.result();
            assertEquals("o-1", result.get("order").asText());
            assertEquals(6, result.get("total").asInt());
            assertEquals("2026-11-26T10:15:30Z", result.get("placedAt").asText());
            assertEquals(3, done.args().get("items").size());
            assertEquals(4, doneInMemory.result().get("total").asInt());
            List<String> types = skiplock.events(durable.id(), 0, 100).stream().map(JobEvent::type).toList();
            assertEquals(List.of("status", "status", "step", "step", "progress", "log", "status"), types);
        }
    }
}
