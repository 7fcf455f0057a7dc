package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobNotFoundException;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStateException;
import dev.skiplock.JobStatus;
import dev.skiplock.RetryPolicy;
import dev.skiplock.Skiplock;
import dev.skiplock.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** DESIGN §3: retries with backoff, permanent failures, timeouts, cancellation of queued and running jobs. */
abstract class FailureContract extends ContractBase {

    record Work(String label) {
    }

    record Strict(int count) {
    }

    @Test
    void failingHandlerIsRetriedWithBackoffUntilItSucceeds() {
        AtomicInteger calls = new AtomicInteger();
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("flaky", Work.class, context -> {
                    if (calls.incrementAndGet() < 3) {
                        throw new IllegalStateException("upstream said no (" + context.attempt() + ")");
                    }
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("flaky", new Work("x")).withMaxAttempts(3));

        Job done = awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(3);
        assertThat(done.lastError()).isEqualTo("java.lang.IllegalStateException: upstream said no (2)");
        awaitCount(() -> worker.metrics().retried(), 2);
    }

    @Test
    void failedAttemptIsRequeuedAfterTheBackoffDelay() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("slow-retry", Work.class,
                        new RetryPolicy(Duration.ofSeconds(30), Duration.ofSeconds(30), 0),
                        context -> {
                            throw new IllegalStateException("boom");
                        }));
        Job job = worker.enqueue(JobRequest.of("slow-retry", new Work("x")).withMaxAttempts(2));

        Job retrying = await().atMost(WAIT).until(() -> worker.get(job.id()).orElseThrow(),
                current -> current.status() == JobStatus.QUEUED && current.attempt() == 1);
        assertThat(Duration.between(retrying.startedAt(), retrying.availableAt()))
                .isBetween(Duration.ofSeconds(29), Duration.ofSeconds(31));
        assertThat(retrying.finishedAt()).isNull();
        assertThat(retrying.lastError()).isEqualTo("java.lang.IllegalStateException: boom");
    }

    /**
     * The backoff counts failures, not snoozes (nor durable waits, which end an attempt the same way):
     * a job that snoozed five times and then failed waits the policy's first delay, 30 s here. Before,
     * every attempt counted, and it waited the sixth delay, 30 s × 2⁵ = 16 min.
     */
    @Test
    void aFailureAfterSnoozesWaitsThePolicysFirstDelay() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("snoozy", Work.class, new RetryPolicy(Duration.ofSeconds(30), Duration.ofHours(1), 0),
                        context -> {
                            if (context.attempt() <= 5) {
                                return JobOutcome.snooze(Duration.ZERO);
                            }
                            throw new IllegalStateException("failed after five snoozes");
                        }));
        Job job = worker.enqueue(JobRequest.of("snoozy", new Work("x")).withMaxAttempts(2));

        Job retrying = await().atMost(WAIT).until(() -> worker.get(job.id()).orElseThrow(),
                current -> current.status() == JobStatus.QUEUED && current.lastError() != null);
        assertThat(retrying.attempt()).isEqualTo(6);
        assertThat(retrying.maxAttempts()).isEqualTo(7);
        assertThat(Duration.between(retrying.startedAt(), retrying.availableAt()))
                .isBetween(Duration.ofSeconds(29), Duration.ofSeconds(31));
    }

    @Test
    void jobFailsForGoodWhenAttemptsAreUsedUp() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("broken", Work.class, context -> {
                    throw new UnsupportedOperationException("never works");
                }));
        Job job = worker.enqueue(JobRequest.of("broken", new Work("x")).withMaxAttempts(2));

        Job done = awaitStatus(worker, job.id(), JobStatus.FAILED);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.finishedAt()).isNotNull();
        assertThat(done.lastError()).isEqualTo("java.lang.UnsupportedOperationException: never works");
        assertThat(done.lastError()).doesNotContain("\tat ");
    }

    @Test
    void unknownKindFailsAtOnceWithoutRetrying() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("known", Work.class, context -> JobOutcome.complete()));
        Job job = worker.enqueue(JobRequest.of("mystery", new Work("x")).withMaxAttempts(5));

        Job done = awaitStatus(worker, job.id(), JobStatus.FAILED);
        assertThat(done.lastError()).isEqualTo("no handler for kind mystery");
        assertThat(done.attempt()).isEqualTo(1);
    }

    @Test
    void argsThatDoNotDeserializeFailWithAClearMessage() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("strict", Strict.class, context -> JobOutcome.complete()));
        Job job = worker.enqueue(JobRequest.of("strict", java.util.Map.of("count", "not a number")));

        Job done = awaitStatus(worker, job.id(), JobStatus.FAILED);
        assertThat(done.lastError()).startsWith("args do not match Strict for kind strict:");
        assertThat(done.attempt()).isEqualTo(1);
    }

    /** The worker's clock decides when the time is up: it times out when the test moves its clock, not before. */
    @Test
    void attemptThatOutlivesItsTimeoutIsInterruptedAndTimedOut() {
        AtomicBoolean interrupted = new AtomicBoolean();
        CountDownLatch running = new CountDownLatch(1);
        TestClock clock = new TestClock(Instant.now());
        Skiplock worker = started(builder(config -> config.queue("default", 1).clock(clock))
                .handler("hang", Work.class, context -> {
                    running.countDown();
                    try {
                        ContractBase.blockUntilInterrupted(); // the hang under test; the timeout must end it
                    } catch (InterruptedException e) {
                        interrupted.set(true);
                        throw e;
                    }
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("hang", new Work("x"))
                .withTimeout(Duration.ofSeconds(1)).withMaxAttempts(1));
        await().atMost(WAIT).until(() -> running.getCount() == 0);
        clock.advance(Duration.ofSeconds(1));

        Job done = awaitStatus(worker, job.id(), JobStatus.TIMED_OUT);
        assertThat(done.lastError()).isEqualTo("timed out after 1s in attempt 1");
        assertThat(done.finishedAt()).isNotNull();
        await().atMost(WAIT).untilTrue(interrupted);
    }

    @Test
    void timedOutAttemptIsRetriedWhileAttemptsRemain() {
        AtomicInteger calls = new AtomicInteger();
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("slow-once", Work.class, context -> {
                    if (calls.incrementAndGet() == 1) {
                        ContractBase.blockUntilInterrupted(); // first attempt hangs until the timeout
                    }
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("slow-once", new Work("x"))
                .withTimeout(Duration.ofSeconds(1)).withMaxAttempts(2));

        Job done = awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.lastError()).isEqualTo("timed out after 1s in attempt 1");
    }

    /** A job without a limit of its own times out after the worker's default, and says so (before: "after nulls"). */
    @Test
    void aJobTimedOutByTheWorkersDefaultSaysAfterHowLong() {
        Skiplock worker = started(builder(config -> config.queue("default", 1).defaultTimeout(Duration.ofSeconds(1)))
                .handler("hang", Work.class, context -> {
                    ContractBase.blockUntilInterrupted(); // the hang under test; the default timeout must end it
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("hang", new Work("x")).withMaxAttempts(1));

        Job done = awaitStatus(worker, job.id(), JobStatus.TIMED_OUT);
        assertThat(done.lastError()).isEqualTo("timed out after 1s in attempt 1");
    }

    @Test
    void cancellingAQueuedJobCancelsItAtOnce() {
        Skiplock client = client();
        Job job = client.enqueue(JobRequest.of("work", new Work("x")));

        Job cancelled = client.cancel(job.id());

        assertThat(cancelled.status()).isEqualTo(JobStatus.CANCELLED);
        assertThat(cancelled.finishedAt()).isNotNull();
        assertThat(cancelled.startedAt()).isNull();
        assertThatThrownBy(() -> client.cancel(job.id())).isInstanceOf(JobStateException.class)
                .hasMessageContaining("already cancelled");
        assertThatThrownBy(() -> client.cancel(UUID.randomUUID())).isInstanceOf(JobNotFoundException.class);
    }

    @Test
    void cancellingARunningJobInterruptsItsHandler() {
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("long", Work.class, context -> {
                    started.countDown();
                    try {
                        ContractBase.blockUntilInterrupted(); // stands for long work; the cancel must end it
                    } catch (InterruptedException e) {
                        interrupted.set(true);
                        throw e;
                    }
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("long", new Work("x")));
        await().atMost(WAIT).until(() -> started.getCount() == 0);

        Job requested = worker.cancel(job.id());

        assertThat(requested.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(requested.cancelRequested()).isTrue();
        Job done = awaitStatus(worker, job.id(), JobStatus.CANCELLED);
        assertThat(done.lastError()).isEqualTo("cancelled while running");
        assertThat(done.finishedAt()).isNotNull();
        assertThat(interrupted).isTrue();
    }

    @Test
    void cancelFromAnotherProcessReachesTheWorkerThroughItsHeartbeat() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("long", Work.class, context -> {
                    started.countDown();
                    ContractBase.blockUntilInterrupted(); // stands for long work; the cancel must end it
                    return JobOutcome.complete();
                }));
        Skiplock otherClient = client();
        Job job = otherClient.enqueue(JobRequest.of("long", new Work("x")));
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        otherClient.cancel(job.id());

        Job done = awaitStatus(otherClient, job.id(), JobStatus.CANCELLED);
        assertThat(done.attempt()).isEqualTo(1);
        awaitCount(() -> worker.metrics().cancelled(), 1);
    }

    @Test
    void retryOfATerminalJobQueuesOneMoreAttempt() {
        AtomicInteger calls = new AtomicInteger();
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("once-broken", Work.class, context -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("first run fails");
                    }
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("once-broken", new Work("x")).withMaxAttempts(1));
        awaitStatus(worker, job.id(), JobStatus.FAILED);

        Job retried = worker.retry(job.id());

        assertThat(retried.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(retried.finishedAt()).isNull();
        assertThat(retried.maxAttempts()).isEqualTo(2);
        Job done = awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(2);
        // On a queue no worker takes, so it stays queued (a worker would fail it at once: no handler).
        assertThatThrownBy(() -> client().retry(client().enqueue(JobRequest.of("x", null).withQueue("idle")).id()))
                .isInstanceOf(JobStateException.class).hasMessageContaining("not terminal");
    }
}
