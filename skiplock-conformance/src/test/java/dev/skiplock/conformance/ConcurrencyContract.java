package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.JobOutcome;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Two worker pools on one database: every job runs, none twice at once, none lost. */
abstract class ConcurrencyContract extends ContractBase {
    static final int JOBS = 5_000;

    record Numbered(int number) {
    }

    @Test
    void twoPoolsOfEightThreadsRunFiveThousandJobsEachExactlyOnce() {
        Map<UUID, AtomicInteger> runs = new ConcurrentHashMap<>();
        Map<UUID, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        List<Skiplock> pools = new ArrayList<>();
        for (int pool = 0; pool < 2; pool++) {
            pools.add(started(builder(config -> config.queue("default", 8))
                    .handler("count", Numbered.class, context -> {
                        UUID id = context.job().id();
                        if (inFlight.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        runs.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet();
                        Thread.yield();
                        inFlight.get(id).decrementAndGet();
                        return JobOutcome.complete();
                    })));
        }
        Skiplock client = client();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            requests.add(JobRequest.of("count", new Numbered(i)));
        }
        for (int from = 0; from < JOBS; from += 500) {
            client.enqueueMany(requests.subList(from, from + 500));
        }

        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                .until(() -> pools.stream().mapToLong(pool -> pool.metrics().succeeded()).sum() == JOBS);

        assertThat(runs).hasSize(JOBS);
        assertThat(runs.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
        assertThat(overlaps).hasValue(0);
        assertThat(pools).allSatisfy(pool -> assertThat(pool.metrics().claimed()).isPositive());
        assertThat(pools).allSatisfy(pool -> assertThat(pool.metrics().staleCompletions()).isZero());
        assertThat(countWithStatus(client, JobStatus.SUCCEEDED)).isEqualTo(JOBS);
    }

    private static int countWithStatus(Skiplock client, JobStatus status) {
        int count = 0;
        JobQuery query = JobQuery.all().withStatus(status).withLimit(JobQuery.MAX_LIMIT);
        while (true) {
            var page = client.list(query);
            count += page.jobs().size();
            if (page.nextCursor() == null) {
                return count;
            }
            query = query.withCursor(page.nextCursor());
        }
    }
}
