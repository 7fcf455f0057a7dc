package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobQuery;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import dev.skiplock.server.CronEntry;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Periodic jobs from the config (DESIGN §5): each slot enqueued once however many servers run it. */
abstract class CronContract extends ContractBase {

    private static ServerConfig withCron(List<CronEntry> cron) {
        return new ServerConfig("127.0.0.1", 0, 1 << 20, false, Map.of(), Map.of(), null, cron);
    }

    @Test
    void twoServersWithTheSameScheduleEnqueueEachSlotOnce() {
        Skiplock skiplock = client();
        List<CronEntry> cron = List.of(new CronEntry("tick", "@every 1s", "UTC",
                Json.read("{\"kind\": \"tick\", \"queue\": \"nobody-works-this\"}")));
        try (SkiplockServer first = SkiplockServer.start(skiplock, withCron(cron));
                SkiplockServer second = SkiplockServer.start(client(), withCron(cron))) {
            await().atMost(WAIT).until(() -> skiplock.list(JobQuery.all()).jobs().size() >= 3);
        }
        List<Job> jobs = skiplock.list(JobQuery.all()).jobs();
        Set<String> keys = jobs.stream().map(Job::uniqueKey).collect(Collectors.toSet());
        assertThat(keys).hasSameSizeAs(jobs).allSatisfy(key -> assertThat(key).startsWith("cron:tick:"));
        assertThat(jobs).allSatisfy(job -> assertThat(job.kind()).isEqualTo("tick"));
    }

    @Test
    void invalidEntriesAreRejectedNamingTheField() {
        Skiplock skiplock = client();
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("nightly", "61 * * * *", null, Json.read("{\"kind\": \"x\"}"))))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("cron[0].schedule:");
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("nightly", "0 3 * * *", "Mars/Olympus", Json.read("{\"kind\": \"x\"}"))))))
                .hasMessageStartingWith("cron[0].timezone:");
        assertThatThrownBy(() -> SkiplockServer.start(skiplock, withCron(List.of(
                new CronEntry("nightly", "0 3 * * *", null, Json.read("{\"kind\": \"x\", \"oops\": 1}"))))))
                .hasMessageStartingWith("cron[0].job.oops:");
    }
}
