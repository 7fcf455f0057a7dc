package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobClient;
import dev.skiplock.JobEvent;
import dev.skiplock.JobNotFoundException;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStateException;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * In-memory jobs through the public API (DESIGN §5, seed ADR-0001): {@code durable(false)} runs in
 * this process with the registered handler, answers get, cancel, delete and events like a durable
 * job, maps outcomes the same way, and writes nothing to the database. The instances here have no
 * queues (no worker): in-memory jobs do not need one.
 */
abstract class InMemoryJobsContract extends ContractBase {

    record Work(String label) {
    }

    private static List<String> statuses(List<JobEvent> events) {
        return events.stream().filter(event -> event.type().equals("status")).map(JobEvent::status).toList();
    }

    private Skiplock withHandler(String kind, dev.skiplock.JobHandler<Work> handler) {
        return track(builder(config -> { }).handler(kind, Work.class, handler).build());
    }

    private static JobRequest inMemory(String kind) {
        return JobRequest.of(kind, new Work("x")).withDurable(false);
    }

    @Test
    void snoozeRunsTheHandlerAgainAfterTheDelayWithoutUsingAnAttempt() throws Exception {
        Skiplock skiplock = withHandler("snoozy", context -> context.attempt() == 1
                ? JobOutcome.snooze(Duration.ofMillis(100)) : JobOutcome.complete(Map.of("done", true)));

        Job enqueued = skiplock.enqueue(inMemory("snoozy").withMaxAttempts(1));
        Job done = skiplock.awaitTerminal(enqueued.id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.maxAttempts()).isEqualTo(2);
        assertThat(done.result().get("done").asBoolean()).isTrue();
        assertThat(statuses(skiplock.events(enqueued.id(), 0, 100)))
                .containsExactly("queued", "running", "queued", "running", "succeeded");
        assertThat(skiplock.list(JobQuery.all()).jobs()).isEmpty();
    }

    @Test
    void failureIsRetriedPerTheRetryPolicyWithEventsLikeADurableJob() throws Exception {
        Skiplock skiplock = withHandler("flaky", context -> {
            if (context.attempt() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
            return JobOutcome.complete();
        });

        Job job = skiplock.enqueue(inMemory("flaky").withMaxAttempts(2));
        Job done = skiplock.awaitTerminal(job.id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        List<JobEvent> events = skiplock.events(job.id(), 0, 100);
        assertThat(statuses(events)).containsExactly("queued", "running", "queued", "running", "succeeded");
        assertThat(events).extracting(JobEvent::attempt).containsExactly(0, 1, 1, 2, 2);
        assertThat(events.get(2).message()).isEqualTo("java.lang.IllegalStateException: first attempt fails");
        assertThat(done.lastError()).isEqualTo("java.lang.IllegalStateException: first attempt fails");
    }

    /** As a durable job's (FailureContract): the backoff after snoozes counts the failures only. */
    @Test
    void aFailureAfterSnoozesWaitsThePolicysFirstDelay() {
        Skiplock skiplock = track(builder(config -> { }).handler("snoozy", Work.class,
                new dev.skiplock.RetryPolicy(Duration.ofSeconds(30), Duration.ofHours(1), 0), context -> {
                    if (context.attempt() <= 5) {
                        return JobOutcome.snooze(Duration.ZERO);
                    }
                    throw new IllegalStateException("failed after five snoozes");
                }).build());
        Job job = skiplock.enqueue(inMemory("snoozy").withMaxAttempts(2));

        Job retrying = org.awaitility.Awaitility.await().atMost(WAIT).until(() -> skiplock.get(job.id()).orElseThrow(),
                current -> current.status() == JobStatus.QUEUED && current.lastError() != null);
        assertThat(retrying.attempt()).isEqualTo(6);
        assertThat(Duration.between(retrying.startedAt(), retrying.availableAt()))
                .isBetween(Duration.ofSeconds(29), Duration.ofSeconds(31));
    }

    @Test
    void failureFailsForGoodOnceAttemptsAreUsedUp() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Skiplock skiplock = withHandler("broken", context -> {
            calls.incrementAndGet();
            return JobOutcome.fail("never works");
        });

        Job done = skiplock.awaitTerminal(skiplock.enqueue(inMemory("broken").withMaxAttempts(3)).id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.FAILED);
        assertThat(done.attempt()).isEqualTo(3);
        assertThat(done.lastError()).isEqualTo("never works");
        assertThat(done.finishedAt()).isNotNull();
        assertThat(calls).hasValue(3);
    }

    @Test
    void cancelInterruptsTheRunningHandlerAndTheJobCanThenBeDeleted() throws Exception {
        Skiplock skiplock = withHandler("long", context -> {
            blockUntilInterrupted();
            return JobOutcome.complete();
        });
        Job job = skiplock.enqueue(inMemory("long"));
        awaitStatus(skiplock, job.id(), JobStatus.RUNNING);

        Job cancelling = skiplock.cancel(job.id());
        Job done = skiplock.awaitTerminal(job.id(), WAIT);

        assertThat(cancelling.cancelRequested()).isTrue();
        assertThat(done.status()).isEqualTo(JobStatus.CANCELLED);
        assertThat(done.lastError()).isEqualTo("cancelled while running");
        assertThatThrownBy(() -> skiplock.cancel(job.id())).isInstanceOf(JobStateException.class)
                .hasMessageContaining("already cancelled");
        assertThatThrownBy(() -> skiplock.retry(job.id())).isInstanceOf(JobStateException.class)
                .hasMessageContaining("in-memory");
        skiplock.delete(job.id());
        assertThat(skiplock.get(job.id())).isEmpty();
    }

    /**
     * An instance keeps the last 10,000 in-memory jobs to end, whatever its retention: each keeps its
     * log and checkpoints in the heap. Before, every one was kept for the retention (7 days by default).
     */
    @Test
    void theLastTenThousandEndedInMemoryJobsAreKept() {
        Skiplock skiplock = withHandler("quick", context -> JobOutcome.complete());
        List<UUID> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 10_010; i++) {
            ids.add(skiplock.enqueue(inMemory("quick")).id());
        }

        await().atMost(WAIT).until(() -> ids.stream().map(skiplock::get)
                .allMatch(job -> job.isEmpty() || job.get().status().isTerminal()));
        assertThat(ids.stream().map(skiplock::get).filter(java.util.Optional::isPresent).count()).isEqualTo(10_000);
    }

    /**
     * A deleted in-memory job leaves the last 10,000 ended: 9,990 kept, 10 ended and deleted, then 10
     * more ended keep all 9,990. Before, a deleted job stayed among them (and in the heap) until
     * 10,000 more had ended, and its place cost a job kept (retention and testing reviewer).
     */
    @Test
    void aDeletedInMemoryJobLeavesTheLastTenThousandEnded() {
        Skiplock skiplock = withHandler("quick", context -> JobOutcome.complete());
        List<UUID> kept = ended(skiplock, 9_990);
        ended(skiplock, 10).forEach(skiplock::delete);
        ended(skiplock, 10);

        assertThat(kept.stream().map(skiplock::get).filter(java.util.Optional::isPresent).count()).isEqualTo(9_990);
    }

    /** The ids of {@code count} in-memory jobs enqueued, once each has ended. */
    private static List<UUID> ended(Skiplock skiplock, int count) {
        List<UUID> ids = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(skiplock.enqueue(inMemory("quick")).id());
        }
        await().atMost(WAIT).until(() -> ids.stream().map(skiplock::get)
                .allMatch(job -> job.isPresent() && job.get().status().isTerminal()));
        return ids;
    }

    /**
     * Closing the instance ends the in-memory jobs it still holds: one running, and one waiting for
     * its retry, fail as lost, so that whoever awaits them learns so. Before, they stayed running and
     * queued, and a wait for them (awaitTerminal, a follower's stream) never ended.
     */
    @Test
    void closingTheInstanceFailsItsUnfinishedInMemoryJobsAndEndsTheirWaits() throws Exception {
        Skiplock skiplock = track(builder(config -> config.retryPolicy(new dev.skiplock.RetryPolicy(
                Duration.ofHours(1), Duration.ofHours(1), 0)))
                .handler("long", Work.class, context -> {
                    blockUntilInterrupted();
                    return JobOutcome.complete();
                })
                .handler("flaky", Work.class, context -> {
                    throw new IllegalStateException("again later");
                }).build());
        Job running = skiplock.enqueue(inMemory("long"));
        Job retrying = skiplock.enqueue(inMemory("flaky"));
        awaitStatus(skiplock, running.id(), JobStatus.RUNNING);
        await().atMost(WAIT).until(() -> skiplock.get(retrying.id()).orElseThrow().attempt() == 1
                && skiplock.get(retrying.id()).orElseThrow().status() == JobStatus.QUEUED);
        java.util.concurrent.ExecutorService waiter = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<Job> awaited = waiter.submit(
                    () -> skiplock.awaitTerminal(running.id(), ChronoUnit.FOREVER.getDuration()));

            skiplock.close();

            Job lost = awaited.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            assertThat(lost.status()).isEqualTo(JobStatus.FAILED);
            assertThat(lost.lastError()).startsWith("lost: the Skiplock instance running it closed");
            assertThat(skiplock.get(retrying.id()).orElseThrow().status()).isEqualTo(JobStatus.FAILED);
        } finally {
            waiter.shutdownNow();
        }
    }

    /**
     * A line a cancelled handler logs once its job is cancelled is dropped, as a durable job's is
     * (its lease is gone): the terminal status stays the last event. Before, it was appended after it.
     */
    @Test
    void aLineLoggedAfterTheJobWasCancelledIsDropped() throws Exception {
        java.util.concurrent.CountDownLatch mayLog = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch logged = new java.util.concurrent.CountDownLatch(1);
        Skiplock skiplock = withHandler("tidy", context -> {
            try {
                blockUntilInterrupted();
            } catch (InterruptedException e) {
                mayLog.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                context.log("stdout", "cleaning up late");
                logged.countDown();
            }
            return JobOutcome.complete();
        });
        Job job = skiplock.enqueue(inMemory("tidy"));
        awaitStatus(skiplock, job.id(), JobStatus.RUNNING);

        skiplock.cancel(job.id());
        assertThat(skiplock.awaitTerminal(job.id(), WAIT).status()).isEqualTo(JobStatus.CANCELLED);
        mayLog.countDown();
        assertThat(logged.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        List<JobEvent> events = skiplock.events(job.id(), 0, 100);
        assertThat(events.getLast().status()).isEqualTo("cancelled");
        assertThat(events).extracting(JobEvent::message).doesNotContain("cleaning up late");
    }

    /**
     * An in-memory job's log lives in the heap every job shares: it keeps its first 10,000 lines, 4 Mi
     * characters at most, and says once that it drops the rest. Before, a command printing without
     * end filled the heap.
     */
    @Test
    void anInMemoryJobKeepsTheStartOfItsLog() throws Exception {
        Skiplock skiplock = withHandler("endless", context -> {
            for (int i = 0; i < 10_050; i++) {
                context.log("stdout", "line " + i);
            }
            return JobOutcome.complete();
        });
        Job job = skiplock.enqueue(inMemory("endless"));
        assertThat(skiplock.awaitTerminal(job.id(), WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);

        List<JobEvent> logs = new java.util.ArrayList<>();
        for (List<JobEvent> page = skiplock.events(job.id(), 0, 1000); !page.isEmpty();
                page = skiplock.events(job.id(), page.getLast().seq(), 1000)) {
            page.stream().filter(event -> event.type().equals("log")).forEach(logs::add);
        }
        assertThat(logs).hasSize(10_001);
        assertThat(logs.get(9_999).message()).isEqualTo("line 9999");
        assertThat(logs.getLast().stream()).isEqualTo("skiplock");
        assertThat(logs.getLast().message()).contains("first 10000 log lines");

        Skiplock wide = withHandler("wide", context -> {
            for (int i = 0; i < 100; i++) {
                context.log("stdout", "x".repeat(65_536)); // a command's longest lines
            }
            return JobOutcome.complete();
        });
        Job wideJob = wide.enqueue(inMemory("wide"));
        assertThat(wide.awaitTerminal(wideJob.id(), WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);
        List<JobEvent> kept = wide.events(wideJob.id(), 0, 1000).stream().filter(event -> event.type().equals("log")).toList();
        assertThat(kept).hasSize(65); // 64 lines of 64 Ki characters fill the 4 Mi, then the note
        assertThat(kept.getLast().stream()).isEqualTo("skiplock");
    }

    @Test
    void aJobRunningPastItsTimeoutIsRetriedThenTimedOut() throws Exception {
        Skiplock skiplock = withHandler("stuck", context -> {
            blockUntilInterrupted();
            return JobOutcome.complete();
        });

        Job job = skiplock.enqueue(inMemory("stuck").withTimeout(Duration.ofSeconds(1)).withMaxAttempts(2));
        Job done = skiplock.awaitTerminal(job.id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.TIMED_OUT);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.lastError()).isEqualTo("timed out after 1s in attempt 2");
    }

    @Test
    void logsAndProgressAreEventsAFollowerSeesBeforeTheTerminalStatus() throws Exception {
        Skiplock skiplock = withHandler("chatty", context -> {
            context.log("stdout", "hello " + context.args().label());
            assertThat(context.progress(Map.of("percent", 50))).isTrue();
            return JobOutcome.complete();
        });
        Job job = skiplock.enqueue(inMemory("chatty"));

        Job done = skiplock.awaitTerminal(job.id(), WAIT);
        List<JobEvent> events = skiplock.awaitEvents(job.id(), 0, 100, WAIT);

        assertThat(events).extracting(JobEvent::type).containsExactly("status", "status", "log", "progress", "status");
        assertThat(events.get(2).message()).isEqualTo("hello x");
        assertThat(events.getLast().isTerminal()).isTrue();
        assertThat(done.progress().get("percent").asInt()).isEqualTo(50);
        assertThat(skiplock.events(job.id(), events.get(3).seq(), 100)).hasSize(1);
    }

    @Test
    void whatAnInMemoryJobCannotHonourIsRefusedNamingTheField() {
        Skiplock skiplock = withHandler("any", context -> JobOutcome.complete());
        Map<JobRequest, String> refused = Map.of(
                inMemory("any").withRunAt(Instant.now().plusSeconds(60)), "runAt",
                inMemory("any").withUniqueKey("once"), "uniqueKey",
                inMemory("any").withDependsOn(List.of(UUID.randomUUID())), "dependsOn",
                inMemory("unknown-kind"), "kind");
        refused.forEach((request, field) -> assertThatThrownBy(() -> skiplock.enqueue(request))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(field + ":"));
        assertThatThrownBy(() -> skiplock.enqueueMany(List.of(inMemory("any"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("jobs[0].durable:");
        assertThatThrownBy(() -> skiplock.enqueueScheduled("nightly", Instant.now(), inMemory("any")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("durable:");
        assertThatThrownBy(() -> {
            try (Connection connection = skiplock.dataSource().getConnection()) {
                skiplock.enqueue(connection, inMemory("any"));
            }
        }).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("durable:");
        assertThat(skiplock.list(JobQuery.all()).jobs()).isEmpty();
    }

    @Test
    void anInMemoryJobBelongsToItsTenant() throws Exception {
        Skiplock skiplock = withHandler("long", context -> {
            blockUntilInterrupted();
            return JobOutcome.complete();
        });
        JobClient tenantA = skiplock.tenant("a");
        Job job = tenantA.enqueue(inMemory("long"));
        await().atMost(WAIT).until(() -> tenantA.get(job.id()).orElseThrow().status() == JobStatus.RUNNING);

        assertThat(job.tenant()).isEqualTo("a");
        assertThat(skiplock.tenant("b").get(job.id())).isEmpty();
        assertThatThrownBy(() -> skiplock.tenant("b").cancel(job.id())).isInstanceOf(JobNotFoundException.class);
        assertThat(skiplock.tenant("b").events(job.id(), 0, 10)).isEmpty();
        assertThat(tenantA.cancel(job.id()).cancelRequested()).isTrue();
        assertThat(tenantA.awaitTerminal(job.id(), WAIT).status()).isEqualTo(JobStatus.CANCELLED);
    }

    @Test
    void finishedInMemoryJobsAreForgottenAfterTheRetention() throws Exception {
        Skiplock skiplock = track(builder(config -> config.retention(Duration.ofSeconds(1))
                .pruneInterval(Duration.ofMillis(100)))
                .handler("quick", Work.class, context -> JobOutcome.complete()).build());

        Job done = skiplock.awaitTerminal(skiplock.enqueue(inMemory("quick")).id(), WAIT);

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        await().atMost(WAIT).until(() -> skiplock.get(done.id()).isEmpty());
    }

    @Test
    void awaitTerminalFollowsADurableJobAndReturnsEarlyWhenTheWaitIsOver() throws Exception {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("quick", Work.class, context -> JobOutcome.complete()));
        Job idle = worker.enqueue(JobRequest.of("quick", new Work("later")).withQueue("idle"));

        Job done = worker.awaitTerminal(worker.enqueue(JobRequest.of("quick", new Work("now"))).id(),
                ChronoUnit.FOREVER.getDuration());

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(worker.awaitTerminal(idle.id(), Duration.ZERO).status()).isEqualTo(JobStatus.QUEUED);
        assertThatThrownBy(() -> worker.awaitTerminal(UUID.randomUUID(), Duration.ZERO))
                .isInstanceOf(JobNotFoundException.class);
    }
}
