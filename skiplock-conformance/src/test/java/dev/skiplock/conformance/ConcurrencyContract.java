package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.JobOutcome;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two worker pools on one database: every job runs, none twice at once, none lost. One worker
 * whose outcomes cannot be written stops claiming once it holds its bound; a stopped handler that
 * runs on keeps its slot.
 */
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

    // A worker whose writes stall (a slow or locked database) used to keep claiming: every finished
    // job waited in memory for the completer, still running in the database, without bound.
    @Test
    void aWorkerHoldsAtMostItsConcurrencyPlusOneBatchOfJobsWhoseOutcomesAreNotWritten() {
        int concurrency = 5;
        int bound = concurrency + 1_000; // a queue's slots plus the completer's largest batch
        int jobs = bound + 45;
        Skiplock client = client();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of("count", new Numbered(i)));
        }
        for (int from = 0; from < jobs; from += 500) {
            client.enqueueMany(requests.subList(from, Math.min(jobs, from + 500)));
        }
        CountDownLatch writesMayGo = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Skiplock worker = track(Skiplock.builder()
                .dataSource(LostAnswers.completerHeld(client.dataSource(), writesMayGo))
                .config(fastConfig().queue("default", concurrency).build()).meterRegistry(meters)
                .handler("count", Numbered.class, context -> {
                    runs.incrementAndGet();
                    return JobOutcome.complete();
                })
                .build()).start();

        try {
            await().atMost(Duration.ofMinutes(1)).until(() -> runs.get() >= bound);
            // Three more rounds of the claimer (each poll that times out is followed by a claim
            // attempt) find the bound reached and claim nothing.
            var polls = meters.get("skiplock.claimer.wakeups").tags("queue", "default", "cause", "poll").counter();
            double seen = polls.count();
            await().atMost(Duration.ofMinutes(1)).until(() -> polls.count() >= seen + 3);
            assertThat(runs).hasValue(bound);
            assertThat(worker.metrics().claimed()).isEqualTo(bound);
            assertThat(countWithStatus(client, JobStatus.RUNNING)).isEqualTo(bound);
            assertThat(countWithStatus(client, JobStatus.QUEUED)).isEqualTo(jobs - bound);
        } finally {
            writesMayGo.countDown(); // a held write would keep the worker from closing
        }

        await().atMost(Duration.ofMinutes(1)).until(() -> worker.metrics().succeeded() == jobs);
        assertThat(runs).hasValue(jobs);
        assertThat(countWithStatus(client, JobStatus.SUCCEEDED)).isEqualTo(jobs);
    }

    // A stop (cancel, timeout, lost lease) decides the outcome at once, but a handler that ignores
    // its interrupt runs on: its slot used to be freed with the outcome, so the next job started
    // beside it and a queue of concurrency 1 ran two handlers at once.
    @Test
    void aStoppedHandlerThatRunsOnKeepsItsSlotUntilItReturns() {
        CountDownLatch stubbornStarted = new CountDownLatch(1);
        CountDownLatch stubbornMayReturn = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Skiplock worker = started(builder(config -> config.queue("default", 1)).meterRegistry(meters)
                .handler("stubborn", Numbered.class, context -> {
                    mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                    stubbornStarted.countDown();
                    boolean mayReturn = false;
                    while (!mayReturn) {
                        try {
                            mayReturn = stubbornMayReturn.await(1, TimeUnit.MINUTES);
                        } catch (InterruptedException ignored) {
                            // this handler ignores its stop, as blocking code that swallows interrupts does
                        }
                    }
                    running.decrementAndGet();
                    return JobOutcome.complete();
                })
                .handler("count", Numbered.class, context -> {
                    mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                    running.decrementAndGet();
                    return JobOutcome.complete();
                }));
        Skiplock client = client();
        UUID stubborn = client.enqueue(JobRequest.of("stubborn", new Numbered(1))).id();
        try {
            await().atMost(Duration.ofMinutes(1)).until(() -> stubbornStarted.getCount() == 0);
            client.cancel(stubborn);
            await().atMost(Duration.ofMinutes(1))
                    .until(() -> client.get(stubborn).orElseThrow().status() == JobStatus.CANCELLED);
            UUID next = client.enqueue(JobRequest.of("count", new Numbered(2))).id();

            // Three more rounds of the claimer find no free slot and claim nothing.
            var polls = meters.get("skiplock.claimer.wakeups").tags("queue", "default", "cause", "poll").counter();
            double seen = polls.count();
            await().atMost(Duration.ofMinutes(1)).until(() -> polls.count() >= seen + 3);
            assertThat(client.get(next).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
            assertThat(worker.metrics().claimed()).isEqualTo(1);

            stubbornMayReturn.countDown();
            await().atMost(Duration.ofMinutes(1))
                    .until(() -> client.get(next).orElseThrow().status() == JobStatus.SUCCEEDED);
        } finally {
            stubbornMayReturn.countDown();
        }
        assertThat(mostAtOnce).hasValue(1);
        assertThat(client.get(stubborn).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
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
