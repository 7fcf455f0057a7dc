package dev.skiplock.testing;

import static dev.skiplock.testing.SkiplockAssertions.assertEnqueued;
import static dev.skiplock.testing.SkiplockAssertions.assertNotEnqueued;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.RetryPolicy;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockClient;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What skiplock-testing gives a user's test, on each database (one subclass per database, a database per test). */
abstract class SkiplockTestingContract {
    record Email(String to) {}

    private final AtomicInteger sent = new AtomicInteger();

    private Skiplock.Builder withMail(Skiplock.Builder app) {
        return app.handler("email.send", Email.class, context -> {
            sent.incrementAndGet();
            if (context.args().to().startsWith("bounce")) {
                throw new IllegalStateException("mailbox " + context.args().to() + " is full");
            }
            return JobOutcome.complete("sent to " + context.args().to());
        });
    }

    @Test
    void eachTestGetsItsOwnMigratedDatabase(SkiplockTestDatabase database, SkiplockClient client, Skiplock.Builder app) {
        assertThat(client.list(JobQuery.all()).jobs()).isEmpty();
        assertThat(database.database()).isEqualTo(expectedDatabase());
        try (Skiplock skiplock = app.build()) {
            assertThat(skiplock.dataSource()).isNotNull();
            assertThat(skiplock.driverName()).isEqualTo(expectedDatabase().name().toLowerCase(java.util.Locale.ROOT));
        }
    }

    protected abstract SkiplockTest.Database expectedDatabase();

    @Test
    void assertEnqueuedFindsTheOneJobWhoseArgsMatchAndReturnsIt(SkiplockClient client) {
        Job ada = client.enqueue(JobRequest.of("email.send", new Email("ada@example.com")));
        client.enqueue(JobRequest.of("email.send", new Email("bob@example.com")));

        Job found = assertEnqueued(client, "email.send", args -> args.get("to").asText().equals("ada@example.com"));
        assertThat(found.id()).isEqualTo(ada.id());
        assertThat(assertEnqueued(client, "email.send", Email.class, email -> email.to().startsWith("bob")).id())
                .isNotEqualTo(ada.id());
        assertNotEnqueued(client, "email.send", args -> args.get("to").asText().equals("eve@example.com"));
        assertNotEnqueued(client, "sms.send", args -> true);
    }

    @Test
    void assertionsFailWithWhatTheyFound(SkiplockClient client) {
        client.enqueue(JobRequest.of("email.send", new Email("ada@example.com")));
        client.enqueue(JobRequest.of("email.send", new Email("ada@example.com")));

        assertThatThrownBy(() -> assertEnqueued(client, "email.send", args -> true))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("expected one job of kind email.send with matching args enqueued, found 2: ");
        assertThatThrownBy(() -> assertEnqueued(client, "email.send", args -> false))
                .isInstanceOf(AssertionError.class).hasMessageEndingWith("found 0");
        assertThatThrownBy(() -> assertNotEnqueued(client, "email.send", args -> true))
                .isInstanceOf(AssertionError.class).hasMessageContaining("ada@example.com");
    }

    @Test
    void assertEnqueuedOnAConnectionSeesOnlyWhatItsOpenTransactionEnqueued(SkiplockTestDatabase database,
            SkiplockClient client) throws Exception {
        client.enqueue(JobRequest.of("email.send", new Email("committed@example.com")));
        try (Connection connection = database.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            Job pending = client.enqueue(connection, JobRequest.of("email.send", new Email("ada@example.com")));

            Job found = assertEnqueued(connection, "email.send", args -> args.get("to").asText().startsWith("ada"));
            assertThat(found.id()).isEqualTo(pending.id());
            assertThat(found.status()).isEqualTo(JobStatus.QUEUED);
            assertThat(found.args().get("to").asText()).isEqualTo("ada@example.com");
            assertNotEnqueued(connection, "email.send", args -> args.get("to").asText().startsWith("committed"));
            assertNotEnqueued(client, "email.send", args -> args.get("to").asText().startsWith("ada"));

            connection.rollback();
            assertNotEnqueued(connection, "email.send", args -> true);
            connection.setAutoCommit(true);
        }
        assertNotEnqueued(client, "email.send", args -> args.get("to").asText().startsWith("ada"));
    }

    @Test
    void runNowRunsOneAttemptOfThatJobAloneThroughTheHandlerAndReturnsItsOutcome(SkiplockClient client, Skiplock.Builder app) {
        Skiplock.Builder mail = withMail(app);
        Job welcome = client.enqueue(JobRequest.of("email.send", new Email("ada@example.com")).withQueue("mail"));
        Job bounce = client.enqueue(JobRequest.of("email.send", new Email("bounce@example.com")).withQueue("mail")
                .withMaxAttempts(2));

        Job done = SkiplockTesting.runNow(mail, welcome);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("sent to ada@example.com");
        Job heldBack = client.get(bounce.id()).orElseThrow();
        assertThat(heldBack.attempt()).isZero();
        assertThat(heldBack.availableAt()).isEqualTo(bounce.availableAt());

        Job retried = SkiplockTesting.runNow(mail, bounce.id());
        assertThat(retried.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(retried.attempt()).isEqualTo(1);
        assertThat(retried.lastError()).contains("mailbox bounce@example.com is full");
        Job failed = SkiplockTesting.runNow(mail, retried);
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.attempt()).isEqualTo(2);
        assertThat(sent).hasValue(3);
        assertThatThrownBy(() -> SkiplockTesting.runNow(mail, failed))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("is failed");
    }

    @Test
    void runNowRunsAJobScheduledForLater(SkiplockClient client, Skiplock.Builder app, TestClock clock) {
        Job later = client.enqueue(JobRequest.of("email.send", new Email("ada@example.com"))
                .withRunAt(clock.instant().plus(Duration.ofHours(1))));

        assertThat(SkiplockTesting.runNow(withMail(app), later).status()).isEqualTo(JobStatus.SUCCEEDED);
    }

    @Test
    void drainRunsEveryAvailableJobOfItsQueuesAndLeavesTheRest(SkiplockClient client, Skiplock.Builder app,
            TestClock clock) {
        Job first = client.enqueue(JobRequest.of("email.send", new Email("ada@example.com")).withQueue("mail"));
        Job dependent = client.enqueue(JobRequest.of("email.send", new Email("bob@example.com")).withQueue("mail")
                .withDependsOn(List.of(first.id())));
        Job later = client.enqueue(JobRequest.of("email.send", new Email("eve@example.com")).withQueue("mail")
                .withRunAt(clock.instant().plus(Duration.ofHours(1))));
        Job elsewhere = client.enqueue(JobRequest.of("email.send", new Email("joe@example.com")).withQueue("other"));

        Skiplock.Builder mail = withMail(app);
        List<Job> ran = SkiplockTesting.drain(mail, "mail");

        assertThat(ran).extracting(Job::id).containsExactly(first.id(), dependent.id());
        assertThat(ran).extracting(Job::status).containsOnly(JobStatus.SUCCEEDED);
        assertThat(client.get(later.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
        assertThat(client.get(elsewhere.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
        assertThat(SkiplockTesting.drain(mail, "mail")).isEmpty();
    }

    /**
     * A paused queue's jobs are left where they are: drain and runDue return at once, as the worker
     * claims none of them. Before, they counted as available: each call waited its whole minute and
     * failed saying jobs were still available.
     */
    @Test
    void drainAndRunDueLeaveAPausedQueuesJobs(SkiplockClient client, Skiplock.Builder app, TestClock clock) {
        Job paused = client.enqueue(JobRequest.of("email.send", new Email("ada@example.com")).withQueue("mail"));
        Skiplock.Builder mail = withMail(app);
        try (Skiplock admin = mail.build()) {
            admin.pauseQueue("mail");
        }

        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            assertThat(SkiplockTesting.drain(mail, "mail")).isEmpty();
            assertThat(SkiplockTesting.runDue(mail, clock, "mail")).isEmpty();
        });
        assertThat(client.get(paused.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
        assertThat(sent).hasValue(0);
    }

    /**
     * runNow refuses a job of a paused queue at once, saying so. Before, it waited its whole minute
     * for an attempt no worker would claim, holding the queue's other jobs back meanwhile, and failed
     * saying the job was still queued (retention and testing reviewer).
     */
    @Test
    void runNowRefusesAJobOfAPausedQueue(SkiplockClient client, Skiplock.Builder app) {
        Job paused = client.enqueue(JobRequest.of("email.send", new Email("ada@example.com")).withQueue("mail"));
        Skiplock.Builder mail = withMail(app);
        try (Skiplock admin = mail.build()) {
            admin.pauseQueue("mail");
        }

        assertThatThrownBy(() -> SkiplockTesting.runNow(mail, paused)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("queue mail of job " + paused.id() + " is paused");
        assertThat(client.get(paused.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
        assertThat(sent).hasValue(0);
    }

    @Test
    void aJobForInAnHourRunsOnlyOnceTheClockReachesIt(SkiplockClient client, Skiplock.Builder app, TestClock clock) {
        Skiplock.Builder mail = withMail(app);
        Job reminder = client.enqueue(JobRequest.of("email.send", new Email("ada@example.com")).withQueue("mail")
                .withRunAt(clock.instant().plus(Duration.ofHours(1))));

        assertThat(SkiplockTesting.drain(mail, "mail")).isEmpty();
        clock.advance(Duration.ofMinutes(59));
        assertThat(SkiplockTesting.runDue(mail, clock, "mail")).isEmpty();
        clock.advance(Duration.ofMinutes(1));
        List<Job> ran = SkiplockTesting.runDue(mail, clock, "mail");

        assertThat(ran).extracting(Job::id).containsExactly(reminder.id());
        assertThat(ran.getFirst().status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(sent).hasValue(1);
    }

    @Test
    void aRetryRunsOnlyOnceTheClockPassedItsBackoff(SkiplockClient client, Skiplock.Builder app, TestClock clock) {
        AtomicInteger attempts = new AtomicInteger();
        Skiplock.Builder flaky = app.handler("flaky", Email.class, new RetryPolicy(Duration.ofHours(1),
                Duration.ofHours(1), 0), context -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
            return JobOutcome.complete();
        });
        Job job = client.enqueue(JobRequest.of("flaky", new Email("ada@example.com")).withMaxAttempts(3));

        Job retrying = SkiplockTesting.runDue(flaky, clock, "default").getFirst();
        assertThat(retrying.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(retrying.lastError()).contains("first attempt fails");
        assertThat(SkiplockTesting.drain(flaky, "default")).isEmpty();
        clock.advance(Duration.ofMinutes(59));
        assertThat(SkiplockTesting.runDue(flaky, clock, "default")).isEmpty();
        clock.advance(Duration.ofMinutes(1));

        assertThat(SkiplockTesting.runDue(flaky, clock, "default")).singleElement()
                .satisfies(done -> assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED))
                .satisfies(done -> assertThat(done.attempt()).isEqualTo(2));
        assertThat(attempts).hasValue(2);
        assertThat(client.get(job.id()).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
    }

    /**
     * A retry runDue scheduled by a test clock behind the database's (a fixed date in the past, or
     * {@code new TestClock()} a few seconds into a test) waits for that clock, in the same call and
     * in the next ones. Before, its time, counted from the test's clock, lay in the database's past:
     * the worker ran it again at once, and one call ran every attempt.
     */
    @Test
    void aRetryWaitsForATestClockBehindTheDatabase(SkiplockClient client, Skiplock.Builder app) {
        aRetryWaitsFor(new TestClock(java.time.Instant.now().minus(Duration.ofHours(2)).truncatedTo(
                java.time.temporal.ChronoUnit.MILLIS)), client, app);
    }

    /**
     * The same on a February 29: the hold is taken away as it was added (on PostgreSQL, 1000 years
     * added and taken away were calendar arithmetic, and a retry held from 2000-02-29 came back on
     * February 28, due at once).
     */
    @Test
    void aRetryWaitsForATestClockOnAFebruary29(SkiplockClient client, Skiplock.Builder app) {
        aRetryWaitsFor(new TestClock(java.time.Instant.parse("2000-02-29T12:00:00Z")), client, app);
    }

    private void aRetryWaitsFor(TestClock clock, SkiplockClient client, Skiplock.Builder app) {
        AtomicInteger attempts = new AtomicInteger();
        Skiplock.Builder failing = app.handler("flaky", Email.class, new RetryPolicy(Duration.ofHours(1),
                Duration.ofHours(1), 0), context -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("always fails");
        });
        Job job = client.enqueue(JobRequest.of("flaky", new Email("ada@example.com")).withMaxAttempts(3));

        assertThat(SkiplockTesting.runDue(failing, clock, "default")).singleElement()
                .satisfies(retrying -> assertThat(retrying.status()).isEqualTo(JobStatus.QUEUED));
        assertThat(attempts).as("one attempt in the first call").hasValue(1);
        assertThat(SkiplockTesting.runDue(failing, clock, "default")).as("nothing due yet").isEmpty();
        assertThat(client.get(job.id()).orElseThrow().availableAt()).as("between calls, its time by the test's clock")
                .isBetween(clock.instant().plus(Duration.ofMinutes(59)), clock.instant().plus(Duration.ofHours(1)));
        clock.advance(Duration.ofHours(1));

        assertThat(SkiplockTesting.runDue(failing, clock, "default")).singleElement()
                .satisfies(retried -> assertThat(retried.attempt()).isEqualTo(2));
        assertThat(attempts).hasValue(2);
    }

    @Test
    void aDurableSleepEndsWhenTheClockPassedIt(SkiplockClient client, Skiplock.Builder app, TestClock clock) {
        AtomicInteger afterSleep = new AtomicInteger();
        Skiplock.Builder sleeper = app.handler("cool-down", Email.class, context -> {
            context.sleep("cool-down", Duration.ofHours(1));
            afterSleep.incrementAndGet();
            return JobOutcome.complete(Map.of("woke", true));
        });
        Job job = client.enqueue(JobRequest.of("cool-down", new Email("ada@example.com")));

        assertThat(SkiplockTesting.runDue(sleeper, clock, "default")).singleElement()
                .satisfies(sleeping -> assertThat(sleeping.status()).isEqualTo(JobStatus.QUEUED));
        clock.advance(Duration.ofMinutes(30));
        assertThat(SkiplockTesting.runDue(sleeper, clock, "default")).isEmpty();
        clock.advance(Duration.ofMinutes(30));

        assertThat(SkiplockTesting.runDue(sleeper, clock, "default")).singleElement()
                .satisfies(done -> assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED));
        assertThat(afterSleep).hasValue(1);
        assertThat(client.get(job.id()).orElseThrow().result().get("woke").asBoolean()).isTrue();
    }
}
