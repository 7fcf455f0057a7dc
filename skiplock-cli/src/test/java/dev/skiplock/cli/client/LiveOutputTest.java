package dev.skiplock.cli.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.cli.CliJson;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The text of the live views, which are pure functions of what the server answered. */
class LiveOutputTest {
    private static final Instant T0 = Instant.parse("2026-11-26T12:00:00Z");

    private static JsonNode queues(long succeeded, long failed, long running) {
        return CliJson.read("""
                {"queues":[{"name":"default","counts":{"waiting":0,"queued":3,"running":%d,"succeeded":%d,
                "failed":%d,"timed_out":0,"cancelled":0},"paused":false,"concurrency":8}]}"""
                .formatted(running, succeeded, failed));
    }

    private static JsonNode workers() {
        return CliJson.read("""
                [{"id":"w1","host":"h","pid":7,"queues":["default","builds"],"concurrency":8,
                  "startedAt":"2026-11-26T11:00:00Z","lastHeartbeatAt":"2026-11-26T11:59:57Z","status":"active"},
                 {"id":"w0","host":"h","pid":6,"queues":["default"],"concurrency":8,
                  "startedAt":"2026-11-26T10:00:00Z","lastHeartbeatAt":"2026-11-26T10:30:00Z","status":"stopped"}]""");
    }

    @Test
    void statusLineShowsStatusAttemptElapsedAndProgress() {
        assertThat(StatusLine.render("queued", 0, Duration.ofSeconds(3), null)).isEqualTo("queued · 3s");
        assertThat(StatusLine.render("running", 2, Duration.ofSeconds(65), "{\"done\":3}"))
                .isEqualTo("running · attempt 2 · 1m05s · progress {\"done\":3}");
    }

    @Test
    void topFrameShowsCountsByStatusAndFinishedJobsPerSecondSinceThePreviousFrame() {
        TopFrame.Sample first = new TopFrame.Sample(T0, queues(10, 1, 2), workers(), null);
        TopFrame.Sample second = new TopFrame.Sample(T0.plusSeconds(2), queues(16, 2, 2), workers(), null);

        List<String> once = TopFrame.lines("http://s", Duration.ofSeconds(2), null, first);
        List<String> next = TopFrame.lines("http://s", Duration.ofSeconds(2), first, second);

        assertThat(once.get(2).split(" +")).containsExactly("QUEUE", "PAUSED", "WAITING", "QUEUED", "RUNNING",
                "SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELLED", "FINISHED/S");
        assertThat(once.get(3).split(" +")).containsExactly("default", "no", "0", "3", "2", "10", "1", "0", "0", "-");
        assertThat(next.get(3).split(" +")).endsWith("16", "2", "0", "0", "3.5");
        assertThat(once).anySatisfy(line -> assertThat(line.split(" +"))
                .containsExactly("w1", "h", "7", "default,builds", "active", "3s", "ago"));
        assertThat(once).noneMatch(line -> line.startsWith("w0")).contains("(1 stopped not shown)");
    }

    @Test
    void topNeverShowsANegativeRateWhenRetentionDeletedFinishedJobs() {
        TopFrame.Sample first = new TopFrame.Sample(T0, queues(10, 0, 0), workers(), null);
        TopFrame.Sample pruned = new TopFrame.Sample(T0.plusSeconds(1), queues(4, 0, 0), workers(), null);

        assertThat(TopFrame.lines("http://s", Duration.ofSeconds(1), first, pruned).get(3)).endsWith("0.0");
    }

    @Test
    void topShowsWhyWorkersAreMissingInsteadOfFailing() {
        TopFrame.Sample refused = new TopFrame.Sample(T0, queues(0, 0, 0), null, "this needs an admin token");

        assertThat(TopFrame.lines("http://s", Duration.ofSeconds(2), null, refused))
                .last().isEqualTo("workers: this needs an admin token");
    }
}
