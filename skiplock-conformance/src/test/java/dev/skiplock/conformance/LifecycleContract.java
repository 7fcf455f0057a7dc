package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** DESIGN §1 and §5 (transactional enqueue): statuses, truthful timestamps, ordering, outcomes. */
abstract class LifecycleContract extends ContractBase {

    record Greeting(String name) {
    }

    @Test
    void queuedJobHasOnlyRequestedAtUntilAWorkerClaimsIt() {
        Job job = client().enqueue(JobRequest.of("greet", new Greeting("Ada")));

        assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(job.tenant()).isEqualTo("default");
        assertThat(job.queue()).isEqualTo("default");
        assertThat(job.attempt()).isZero();
        assertThat(job.maxAttempts()).isEqualTo(5);
        assertThat(job.requestedAt()).isNotNull();
        assertThat(job.availableAt()).isNotNull();
        assertThat(job.startedAt()).isNull();
        assertThat(job.finishedAt()).isNull();
        assertThat(job.lockedBy()).isNull();
        assertThat(job.args().get("name").asText()).isEqualTo("Ada");
        assertThat(job.id().version()).isEqualTo(7);
    }

    @Test
    void workerRunsJobToSucceededWithTruthfulTimestampsAndResult() {
        CountDownLatch release = new CountDownLatch(1);
        Skiplock skiplock = started(builder(config -> config.queue("default", 2))
                .handler("greet", Greeting.class, context -> {
                    release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                    return JobOutcome.complete(Map.of("greeting", "hello " + context.args().name()));
                }));
        Job queued = skiplock.enqueue(JobRequest.of("greet", new Greeting("Ada")));

        Job running = awaitStatus(skiplock, queued.id(), JobStatus.RUNNING);
        assertThat(running.attempt()).isEqualTo(1);
        assertThat(running.startedAt()).isAfterOrEqualTo(running.requestedAt());
        assertThat(running.finishedAt()).isNull();
        assertThat(running.lockedBy()).isEqualTo(skiplock.config().workerId());
        assertThat(running.lockedUntil()).isAfter(running.startedAt());

        release.countDown();
        Job done = awaitStatus(skiplock, queued.id(), JobStatus.SUCCEEDED);
        assertThat(done.finishedAt()).isAfterOrEqualTo(done.startedAt());
        assertThat(done.result().get("greeting").asText()).isEqualTo("hello Ada");
        assertThat(done.lockedBy()).isNull();
        assertThat(done.lockedUntil()).isNull();
        assertThat(done.lastError()).isNull();
        awaitCount(() -> skiplock.metrics().succeeded(), 1);
    }

    @Test
    void enqueueInCallersTransactionLeavesNoJobOnRollback() throws Exception {
        Skiplock skiplock = client();
        Job rolledBack;
        try (Connection connection = skiplock.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            rolledBack = skiplock.enqueue(connection, JobRequest.of("greet", new Greeting("gone")));
            connection.rollback();
        }
        Job committed;
        try (Connection connection = skiplock.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            committed = skiplock.enqueue(connection, JobRequest.of("greet", new Greeting("kept")));
            connection.commit();
        }

        assertThat(skiplock.get(rolledBack.id())).isEmpty();
        assertThat(skiplock.get(committed.id())).hasValueSatisfying(
                job -> assertThat(job.status()).isEqualTo(JobStatus.QUEUED));
        assertThat(skiplock.list(JobQuery.all()).jobs()).extracting(Job::id).containsExactly(committed.id());
    }

    @Test
    void claimsByPriorityThenAvailabilityThenId() {
        Skiplock client = client();
        Job low = client.enqueue(JobRequest.of("greet", new Greeting("low")).withPriority(-5));
        Job firstDefault = client.enqueue(JobRequest.of("greet", new Greeting("first")));
        Job secondDefault = client.enqueue(JobRequest.of("greet", new Greeting("second")));
        Job high = client.enqueue(JobRequest.of("greet", new Greeting("high")).withPriority(10));
        Job earlier = client.enqueue(JobRequest.of("greet", new Greeting("earlier"))
                .withRunAt(Instant.now().minusSeconds(60)));

        List<String> order = new CopyOnWriteArrayList<>();
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("greet", Greeting.class, context -> {
                    order.add(context.args().name());
                    return JobOutcome.complete();
                }));

        await().atMost(WAIT).until(() -> order.size() == 5);
        assertThat(order).containsExactly("high", "earlier", "first", "second", "low");
        assertThat(List.of(low, firstDefault, secondDefault, high, earlier))
                .allSatisfy(job -> assertThat(awaitTerminal(worker, job.id()).status()).isEqualTo(JobStatus.SUCCEEDED));
    }

    @Test
    void jobWithFutureRunAtWaitsUntilThen() {
        Instant runAt = Instant.now().plusMillis(1500);
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("greet", Greeting.class, context -> JobOutcome.complete()));
        Job job = worker.enqueue(JobRequest.of("greet", new Greeting("later")).withRunAt(runAt));

        assertThat(worker.get(job.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
        Job done = awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        // Database and JVM clocks are the same machine's clock here; allow a millisecond of rounding.
        assertThat(done.startedAt()).isAfterOrEqualTo(runAt.minusMillis(1));
    }

    record Strict(int required) {
        Strict {
            if (required < 1) {
                throw new IllegalArgumentException("required: must be positive");
            }
        }
    }

    /**
     * A worker takes its first-use costs before start returns (Warmup): that runs the completion
     * statement with no outcome and reads {} into every args type. It writes nothing, and a type
     * that cannot be read from {} does not stop the start.
     */
    @Test
    void startingAWorkerWritesNothingEvenWhenAnArgsTypeCannotBeReadFromAnEmptyObject() {
        Skiplock client = client();
        Job waiting = client.enqueue(JobRequest.of("strict", new Strict(1)).withQueue("elsewhere"));
        long eventsBefore = client.events(waiting.id(), 0, 100).size();

        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("strict", Strict.class, context -> JobOutcome.complete(context.args().required())));

        assertThat(client.get(waiting.id()).orElseThrow()).isEqualTo(waiting);
        assertThat(client.events(waiting.id(), 0, 100)).hasSize((int) eventsBefore);
        Job job = worker.enqueue(JobRequest.of("strict", new Strict(7)));
        assertThat(awaitTerminal(worker, job.id()).result().asInt()).isEqualTo(7);
    }

    @Test
    void jobsOnlyRunOnQueuesTheWorkerServes() {
        List<String> ran = new CopyOnWriteArrayList<>();
        Skiplock worker = started(builder(config -> config.queue("mail", 1))
                .handler("greet", Greeting.class, context -> {
                    ran.add(context.job().queue());
                    return JobOutcome.complete();
                }));
        Job other = worker.enqueue(JobRequest.of("greet", new Greeting("x")).withQueue("reports"));
        Job mail = worker.enqueue(JobRequest.of("greet", new Greeting("y")).withQueue("mail"));

        awaitStatus(worker, mail.id(), JobStatus.SUCCEEDED);
        assertThat(worker.get(other.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
        assertThat(ran).containsExactly("mail");
    }

    @Test
    void snoozeRunsAgainLaterWithoutUsingUpAnAttempt() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("greet", Greeting.class, context -> context.attempt() == 1
                        ? JobOutcome.snooze(Duration.ofMillis(200))
                        : JobOutcome.complete()));
        Job job = worker.enqueue(JobRequest.of("greet", new Greeting("x")).withMaxAttempts(1));

        Job done = awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.maxAttempts()).isEqualTo(2);
    }

    @Test
    void handlerCanCancelItsJobWithAReason() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("greet", Greeting.class, context -> JobOutcome.cancel("recipient unsubscribed")));
        Job job = worker.enqueue(JobRequest.of("greet", new Greeting("x")));

        Job done = awaitStatus(worker, job.id(), JobStatus.CANCELLED);
        assertThat(done.lastError()).isEqualTo("recipient unsubscribed");
        assertThat(done.finishedAt()).isNotNull();
        assertThat(done.attempt()).isEqualTo(1);
    }
}
