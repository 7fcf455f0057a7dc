package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobContext;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.ResumableHandler;
import dev.skiplock.Skiplock;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * STYLE: background loops never die. A worker's claimer, heartbeat and completer each meet an
 * Error (out of memory, say) thrown where their statement is prepared, once, after the worker
 * started: each logs it and goes on. Before, the claimer's thread and the completer's died with it
 * (the worker then heartbeated on without claiming, or with its jobs' outcomes never written), and
 * the executor ran the heartbeat no more (every lease lost while the worker lived). Within a
 * heartbeat's tick, an Error in a step before the lease extension (the registry row's touch, the
 * give-back of a lost claim) leaves the extension to run in the same tick.
 */
abstract class BackgroundLoopsContract extends ContractBase {
    record Work(String label) {
    }

    @Test
    void aClaimerThatMeetsAnErrorClaimsAgain() {
        AtomicBoolean armed = new AtomicBoolean();
        Skiplock worker = started(workerMeetingAnError("claim_jobs", armed)
                .handler("work", Work.class, context -> JobOutcome.complete()));
        armed.set(true);

        Job job = worker.enqueue(JobRequest.of("work", new Work("x")));

        assertThat(awaitStatus(worker, job.id(), JobStatus.SUCCEEDED).attempt()).isEqualTo(1);
        assertThat(armed).as("the claim met the error").isFalse();
    }

    @Test
    void aHeartbeatThatMeetsAnErrorKeepsTheLeasesAlive() throws Exception {
        AtomicBoolean armed = new AtomicBoolean();
        CountDownLatch mayFinish = new CountDownLatch(1);
        Holding holding = holdingAJob(workerMeetingAnError("heartbeat", armed), mayFinish);
        Skiplock worker = holding.worker();
        Job job = holding.job();

        armed.set(true);
        await().atMost(WAIT).untilFalse(armed);
        Object leaseAfterTheError = leaseEnd(worker, job);
        // a later heartbeat extends the lease (before, the reaper cleared it once it ran out: null)
        await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> leaseEnd(worker, job),
                lease -> lease != null && !Objects.equals(lease, leaseAfterTheError));
        mayFinish.countDown();

        Job done = awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(worker.metrics().leasesLost()).isZero();
    }

    @Test
    void aCompleterThatMeetsAnErrorWritesTheOutcomeAgain() {
        AtomicBoolean armed = new AtomicBoolean();
        // a failure: complete_jobs on both databases (SQLite writes a plain success by complete_successes)
        Skiplock worker = started(workerMeetingAnError("complete_jobs", armed)
                .handler("work", Work.class, context -> JobOutcome.fail("the handler's failure")));
        armed.set(true);

        Job job = worker.enqueue(JobRequest.of("work", new Work("x")).withMaxAttempts(1));

        Job failed = awaitStatus(worker, job.id(), JobStatus.FAILED);
        assertThat(failed.lastError()).isEqualTo("the handler's failure");
        assertThat(armed).as("the completion met the error").isFalse();
    }

    /**
     * A heartbeat whose touch of the worker's registry row meets an Error extends the leases in the
     * same tick, as it does after any other failure of the touch. Before, the Error skipped that
     * tick's lease extension: the next statement after it was the next tick's touch.
     */
    @Test
    void aTouchThatMeetsAnErrorStillExtendsTheLeases() throws Exception {
        Skiplock client = client();
        String touch = BeforeStatement.sql(client, "workers", "touch_worker");
        String heartbeat = BeforeStatement.sql(client, "jobs", "heartbeat");
        AtomicBoolean armed = new AtomicBoolean();
        List<String> statements = new CopyOnWriteArrayList<>();
        DataSource pool = BeforeStatement.eachTime(BeforeStatement.eachTime(client.dataSource(), touch, () -> {
            if (armed.compareAndSet(true, false)) {
                statements.add("touch meeting the error");
                throw new StackOverflowError("the test's error, thrown preparing touch_worker");
            }
            statements.add("touch");
        }), heartbeat, () -> statements.add("heartbeat"));
        CountDownLatch mayFinish = new CountDownLatch(1);
        Holding holding = holdingAJob(Skiplock.builder().dataSource(pool).config(fastConfig().queue("default", 1).build()),
                mayFinish);

        armed.set(true);
        assertThat(nextAfter(statements, "touch meeting the error"))
                .as("what the heartbeat's tick prepared after its touch met the error").isEqualTo("heartbeat");
        mayFinish.countDown();

        assertThat(awaitStatus(holding.worker(), holding.job().id(), JobStatus.SUCCEEDED).attempt()).isEqualTo(1);
        assertThat(holding.worker().metrics().leasesLost()).isZero();
    }

    /**
     * A claimer whose claim failed waits out its backoff (100 ms after a first failure) even while
     * wake-ups come, here one enqueue of its own instance after another. Before, any wake-up ended
     * the backoff: a failure that lasted was retried at the rate of the queue's wake-ups (and a job
     * that could not start rang the claimer itself, giving back its slot).
     */
    @Test
    void aFailedClaimWaitsOutItsBackoffThroughWakeUps() {
        Skiplock client = client();
        List<Long> failedClaims = new CopyOnWriteArrayList<>();
        DataSource pool = BeforeStatement.eachTime(client.dataSource(), BeforeStatement.sql(client, "jobs", "claim_jobs"), () -> {
            if (onThread("skiplock-claim-") && failedClaims.size() < 2) { // the claimer's first two, not the warm-up's
                failedClaims.add(System.nanoTime());
                throw new SQLException("the test's failure of a claim");
            }
        });
        Skiplock worker = started(Skiplock.builder().dataSource(pool).config(fastConfig().queue("default", 1).build())
                .handler("work", Work.class, context -> JobOutcome.complete()));
        long giveUp = System.nanoTime() + WAIT.toNanos();
        while (failedClaims.isEmpty() && System.nanoTime() < giveUp) {
            Thread.onSpinWait(); // the wake-ups below must come within the backoff: no polling interval here
        }
        while (failedClaims.size() < 2 && System.nanoTime() < giveUp) {
            worker.enqueue(JobRequest.of("work", new Work("wake-up"))); // wakes the claimer
        }

        assertThat(failedClaims).hasSize(2);
        assertThat(Duration.ofNanos(failedClaims.get(1) - failedClaims.get(0)))
                .as("from the failed claim to the next").isGreaterThanOrEqualTo(Duration.ofMillis(100));
    }

    /**
     * A heartbeat whose give-back of a lost claim's jobs meets an Error goes on with its tick: it
     * touches the registry row and extends the leases. Before, the Error ended the tick there: the
     * next statement after it was the next tick's give-back.
     */
    @Test
    void aGiveBackThatMeetsAnErrorLetsTheHeartbeatGoOn() {
        AtomicBoolean armed = new AtomicBoolean(true);
        List<String> statements = new CopyOnWriteArrayList<>();
        heartbeatGivingBackALostClaim(statements, Clock.systemUTC(), () -> {
            if (armed.compareAndSet(true, false)) {
                statements.add("give-back meeting the error");
                throw new StackOverflowError("the test's error, thrown preparing unclaim_jobs");
            }
        });

        assertThat(nextAfter(statements, "give-back meeting the error"))
                .as("what the heartbeat's tick prepared after its give-back met the error").isEqualTo("touch");
    }

    /** As {@link #aGiveBackThatMeetsAnErrorLetsTheHeartbeatGoOn}, the Error met reading the clock after a give-back. */
    @Test
    void aGiveBackWhoseClockMeetsAnErrorLetsTheHeartbeatGoOn() {
        AtomicBoolean armed = new AtomicBoolean();
        List<String> statements = new CopyOnWriteArrayList<>();
        Clock clock = clockThrowingOnceIn("LostClaims", "retry", armed, () -> statements.add("clock meeting the error"));
        heartbeatGivingBackALostClaim(statements, clock, () -> {
            if (!statements.contains("clock meeting the error")) {
                armed.set(true); // read after the first give-back of a heartbeat
            }
        });

        assertThat(nextAfter(statements, "clock meeting the error"))
                .as("what the heartbeat's tick prepared after its give-back met the error").isEqualTo("touch");
    }

    /**
     * Starts a worker of one slot on {@code clock} whose first claim fails (so its jobs, if any, are
     * given back at every heartbeat until the claim's lease would have ended), and records in
     * {@code statements} each give-back of a heartbeat ("give-back", after {@code beforeGiveBack}
     * ran) and each touch of the worker's registry row ("touch").
     */
    private void heartbeatGivingBackALostClaim(List<String> statements, Clock clock, BeforeStatement.Action beforeGiveBack) {
        Skiplock client = client();
        AtomicBoolean claimArmed = new AtomicBoolean(true);
        DataSource claimFailing = BeforeStatement.eachTime(client.dataSource(), BeforeStatement.sql(client, "jobs", "claim_jobs"), () -> {
            // the claimer's first claim, not the warm-up's rehearsal
            if (onThread("skiplock-claim-") && claimArmed.compareAndSet(true, false)) {
                throw new SQLException("the test's failure of a claim");
            }
        });
        DataSource givingBack = BeforeStatement.eachTime(claimFailing, BeforeStatement.sql(client, "jobs", "unclaim_jobs"), () -> {
            if (onThread("skiplock-timer-")) { // the heartbeat's give-back, not the claimer's at once
                beforeGiveBack.run();
                statements.add("give-back");
            }
        });
        DataSource pool = BeforeStatement.eachTime(givingBack, BeforeStatement.sql(client, "workers", "touch_worker"),
                () -> statements.add("touch"));
        started(Skiplock.builder().dataSource(pool).config(fastConfig().queue("default", 1).clock(clock).build()));
    }

    /**
     * A job's timeout whose check meets an Error is checked again: the job still times out. Before,
     * the check was dropped after any failure, and the job ran on past its limit, its lease kept.
     */
    @Test
    void aTimeoutWhoseCheckMeetsAnErrorStillEndsTheJob() {
        AtomicBoolean armed = new AtomicBoolean(true);
        Clock clock = clockThrowingOnceIn("Timeouts", "check", armed);
        Skiplock worker = started(builder(config -> config.queue("default", 1).clock(clock))
                .handler("hang", Work.class, context -> {
                    blockUntilInterrupted(); // the hang under test; the timeout must end it
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("hang", new Work("x")).withTimeout(Duration.ofSeconds(1)).withMaxAttempts(1));

        Job done = awaitStatus(worker, job.id(), JobStatus.TIMED_OUT);
        assertThat(done.lastError()).isEqualTo("timed out after 1s in attempt 1");
        assertThat(armed).as("the check met the error").isFalse();
    }

    /**
     * A claimed job whose start meets an Error (here scheduling its timeout) is handed on, and the
     * rest of its claim start. Before, the Error left that job registered though nothing ran it (the
     * heartbeat kept its lease alive for good) and the rest of the claim unregistered until the
     * reaper.
     */
    @Test
    void aJobThatCannotStartIsHandedOnAndTheRestOfItsClaimStart() {
        AtomicBoolean armed = new AtomicBoolean(true);
        Clock clock = clockThrowingOnceIn("JobRunner", "start", armed);
        Skiplock client = client();
        Job first = client.enqueue(JobRequest.of("work", new Work("timed")).withTimeout(Duration.ofMinutes(10)));
        Job second = client.enqueue(JobRequest.of("work", new Work("untimed")));
        Skiplock worker = started(builder(config -> config.queue("default", 2).clock(clock))
                .handler("work", Work.class, context -> JobOutcome.complete()));

        assertThat(awaitStatus(worker, second.id(), JobStatus.SUCCEEDED).attempt()).as("started in its claim").isEqualTo(1);
        // its lease lapsed and the reaper handed it on: its first attempt counts as lost
        Job handedOn = awaitStatus(worker, first.id(), JobStatus.SUCCEEDED);
        assertThat(handedOn.attempt()).isEqualTo(2);
        assertThat(armed).as("the start met the error").isFalse();
    }

    /**
     * An orphan whose adoption meets an Error while it is being resumed (here scheduling its
     * timeout) is handed on again, and the rest of the adopted orphans resume. Before, that orphan
     * stayed registered though nothing resumed it (the heartbeat kept its lease alive for good).
     */
    @Test
    void anOrphanThatCannotResumeIsHandedOnAgain() {
        AtomicBoolean armed = new AtomicBoolean(true);
        Skiplock client = client();
        UUID timed = orphan(client, "resumable");
        Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs SET timeout_seconds = 600 WHERE id = ?", database.id(timed));
        UUID untimed = orphan(client, "resumable");
        Skiplock worker = started(builder(config -> config.queue("default", 2).clock(clockThrowingOnceIn("JobRunner", "adopt", armed)))
                .handler("resumable", Work.class, new ResumableHandler<Work>() {
                    @Override
                    public JobOutcome handle(JobContext<Work> context) {
                        return JobOutcome.fail("not run here: only resumed");
                    }

                    @Override
                    public Optional<JobOutcome> resume(JobContext<Work> context) {
                        return Optional.of(JobOutcome.complete()); // the execution had finished
                    }
                }));

        assertThat(awaitStatus(worker, untimed, JobStatus.SUCCEEDED).attempt()).isEqualTo(1);
        assertThat(awaitStatus(worker, timed, JobStatus.SUCCEEDED).attempt()).isEqualTo(1);
        assertThat(armed).as("the adoption met the error").isFalse();
    }

    /**
     * A resumable handler's clean-up after a durable outcome ({@code completed}: the command runner
     * deletes the run's directory, which took seconds for one of 100,000 files) holds no other job's
     * outcome. Forced: the first job's clean-up waits until the second job has succeeded. Before, it
     * ran on the completer's thread, and the second job's outcome waited behind it.
     */
    @Test
    void aResumableHandlersCleanUpHoldsNoOtherOutcome() throws InterruptedException {
        CountDownLatch cleaningUp = new CountDownLatch(1);
        CountDownLatch othersDone = new CountDownLatch(1);
        Skiplock worker = started(builder(config -> config.queue("default", 2))
                .handler("resumable", Work.class, succeedingWithCleanUp(() -> {
                    if (cleaningUp.getCount() > 0) {
                        cleaningUp.countDown();
                        awaitIgnoringInterrupts(othersDone);
                    }
                }))
                .handler("plain", Work.class, context -> JobOutcome.complete()));
        Job first = worker.enqueue(JobRequest.of("resumable", new Work("first")));
        assertThat(cleaningUp.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the first job's clean-up began").isTrue();

        Job second = worker.enqueue(JobRequest.of("plain", new Work("second")));
        try {
            assertThat(worker.awaitTerminal(second.id(), WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);
        } finally {
            othersDone.countDown();
        }
        assertThat(worker.awaitTerminal(first.id(), WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);
    }

    /**
     * A worker's close waits for the clean-ups of its last outcomes: they run on virtual threads, and a
     * process's exit right after the close ended one midway (a run directory half deleted stayed for
     * good; second reader). Forced: the clean-up waits until the test has seen the close wait for it.
     */
    @Test
    void aWorkersCloseWaitsForTheCleanUpsOfItsOutcomes() throws InterruptedException {
        CountDownLatch cleaningUp = new CountDownLatch(1);
        CountDownLatch closeSeenWaiting = new CountDownLatch(1);
        AtomicBoolean cleanedUp = new AtomicBoolean();
        Skiplock worker = track(builder(config -> config.queue("default", 1))
                .handler("resumable", Work.class, succeedingWithCleanUp(() -> {
                    cleaningUp.countDown();
                    awaitIgnoringInterrupts(closeSeenWaiting);
                    cleanedUp.set(true);
                })).build()).start();
        Job job = worker.enqueue(JobRequest.of("resumable", new Work("x")));
        assertThat(worker.awaitTerminal(job.id(), WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(cleaningUp.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the clean-up began").isTrue();

        Thread closing = Thread.ofPlatform().start(worker::close);
        try {
            await().atMost(WAIT).until(() -> java.util.Arrays.stream(closing.getStackTrace())
                    .anyMatch(frame -> frame.getMethodName().equals("awaitCleanUps")));
        } finally {
            closeSeenWaiting.countDown();
        }
        closing.join(WAIT.toMillis());
        assertThat(closing.isAlive()).isFalse();
        assertThat(cleanedUp).as("cleaned up before the close returned").isTrue();
    }

    /** A resumable handler whose jobs succeed at once, and whose clean-up after each outcome is {@code cleanUp}. */
    private static ResumableHandler<Work> succeedingWithCleanUp(Runnable cleanUp) {
        return new ResumableHandler<>() {
            @Override
            public JobOutcome handle(JobContext<Work> context) {
                return JobOutcome.complete();
            }

            @Override
            public Optional<JobOutcome> resume(JobContext<Work> context) {
                return Optional.empty();
            }

            @Override
            public void completed(UUID jobId, UUID executionId) {
                cleanUp.run();
            }
        };
    }

    /** A running job of {@code kind} whose worker is gone (a reaper cleared its lease), of one attempt. */
    private UUID orphan(Skiplock client, String kind) {
        UUID id = UUID.randomUUID();
        database.insertWithoutNotification(client.dataSource(), id, kind);
        database.makeOrphan(client.dataSource(), id, "default");
        return id;
    }

    /**
     * The system clock, except that it throws an Error once, read within {@code method} of the
     * engine's class {@code type} while {@code armed} holds (which it clears).
     */
    private static Clock clockThrowingOnceIn(String type, String method, AtomicBoolean armed) {
        return clockThrowingOnceIn(type, method, armed, () -> { });
    }

    /** As {@link #clockThrowingOnceIn(String, String, AtomicBoolean)}, running {@code beforeThrowing} first. */
    private static Clock clockThrowingOnceIn(String type, String method, AtomicBoolean armed, Runnable beforeThrowing) {
        return new ReadByEngineClock(type, method, () -> {
            if (armed.compareAndSet(true, false)) {
                beforeThrowing.run();
                throw new StackOverflowError("the test's error, thrown reading the clock in " + type + "." + method);
            }
        });
    }

    /** A started worker and the one job it runs. */
    private record Holding(Skiplock worker, Job job) {
    }

    /**
     * Starts a worker from {@code builder} whose handler of kind work waits for {@code mayFinish},
     * and enqueues one job; returns once its handler runs.
     */
    private Holding holdingAJob(Skiplock.Builder builder, CountDownLatch mayFinish) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        Skiplock worker = started(builder.handler("work", Work.class, context -> {
            started.countDown();
            awaitIgnoringInterrupts(mayFinish);
            return JobOutcome.complete();
        }));
        Job job = worker.enqueue(JobRequest.of("work", new Work("x")));
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return new Holding(worker, job);
    }

    /** Once {@code statements} holds an entry after {@code marker}, that entry. */
    private static String nextAfter(List<String> statements, String marker) {
        await().atMost(WAIT).until(() -> statements.indexOf(marker) >= 0 && statements.size() > statements.indexOf(marker) + 1);
        return statements.get(statements.indexOf(marker) + 1);
    }

    private static boolean onThread(String prefix) {
        return Thread.currentThread().getName().startsWith(prefix);
    }


    /**
     * A worker of one slot on queue default whose connections throw an Error instead of preparing
     * {@code statement} (of jobs.sql) once the test set {@code armed}.
     */
    private Skiplock.Builder workerMeetingAnError(String statement, AtomicBoolean armed) {
        Skiplock client = client();
        DataSource meetingAnError = BeforeStatement.onceArmed(client.dataSource(), BeforeStatement.sql(client, "jobs", statement),
                armed, () -> {
                    // any Error (an OutOfMemoryError would take down the test's JVM: surefire exits on one)
                    throw new StackOverflowError("the test's error, thrown preparing " + statement);
                });
        return Skiplock.builder().dataSource(meetingAnError).config(fastConfig().queue("default", 1).build());
    }

    /** When the lease of {@code job} ends (null once the reaper cleared it). */
    private static Object leaseEnd(Skiplock worker, Job job) {
        List<Object> ends = Jdbc.query(worker.dataSource(),
                "SELECT locked_until FROM skiplock_jobs WHERE id = '" + job.id() + "'", row -> row.getObject(1));
        assertThat(ends).hasSize(1);
        return ends.get(0);
    }
}
