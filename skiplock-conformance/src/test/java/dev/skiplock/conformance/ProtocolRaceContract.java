package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobContext;
import dev.skiplock.JobHandler;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.ResumableHandler;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.spi.Driver;
import dev.skiplock.spi.Notifier;
import dev.skiplock.testing.TestClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Interleavings of the lease protocol that random faults almost never produce (issue #10), each
 * forced by the test itself: two connections whose statements it orders, a paused handler, a
 * claim whose answer it drops. Each of these failed on the protocol before fencing tokens.
 */
abstract class ProtocolRaceContract extends ContractBase {

    record Work(String label) {
    }

    // Fault 9: a claim lost in a crash must not let the next claim reuse its fence.
    @Test
    void outcomeOfAnExecutionWhoseClaimWasLostIsRejectedEvenOnTheSameWorker() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch firstMayFinish = new CountDownLatch(1);
        CountDownLatch secondStarted = new CountDownLatch(1);
        CountDownLatch secondMayFinish = new CountDownLatch(1);
        AtomicInteger executions = new AtomicInteger();
        // No heartbeat within the test: the database fence alone must reject the first execution.
        Skiplock worker = started(builder(config -> config.queue("default", 2)
                .heartbeatInterval(Duration.ofSeconds(30)).leaseTtl(Duration.ofMinutes(1)))
                .handler("work", Work.class, context -> {
                    if (executions.incrementAndGet() == 1) {
                        firstStarted.countDown();
                        awaitIgnoringInterrupts(firstMayFinish);
                        return JobOutcome.complete("first");
                    }
                    secondStarted.countDown();
                    secondMayFinish.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                    return JobOutcome.complete("second");
                }));
        Job job = worker.enqueue(JobRequest.of("work", new Work("x")).withMaxAttempts(3));
        assertThat(firstStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        // The claim is lost (asynchronous commit, database crash); the same worker claims again.
        database.loseClaim(worker.dataSource(), job.id());
        assertThat(secondStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(worker.get(job.id()).orElseThrow().attempt()).isEqualTo(1); // the same attempt number again
        firstMayFinish.countDown(); // the first execution's outcome arrives while the second runs
        awaitCount(() -> worker.metrics().staleCompletions(), 1);
        assertThat(worker.get(job.id()).orElseThrow().status()).isEqualTo(JobStatus.RUNNING);

        secondMayFinish.countDown();
        Job done = awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("second");
        awaitCount(() -> worker.metrics().succeeded(), 1);
    }

    // One claim statement draws one token for all the jobs it takes: a lease is the job and its token.
    @Test
    void jobsOfOneClaimLoseTheirLeasesOneByOne() throws Exception {
        Skiplock pool = client();
        List<Job> jobs = pool.enqueueMany(List.of(JobRequest.of("work", new Work("moved")),
                JobRequest.of("work", new Work("kept"))));
        CountDownLatch bothStarted = new CountDownLatch(2);
        CountDownLatch keptMayFinish = new CountDownLatch(1);
        AtomicBoolean movedInterrupted = new AtomicBoolean();
        Skiplock worker = started(builder(config -> config.queue("default", 2))
                .handler("work", Work.class, context -> {
                    bothStarted.countDown();
                    if (context.args().label().equals("kept")) {
                        keptMayFinish.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                        return JobOutcome.complete("kept");
                    }
                    try {
                        blockUntilInterrupted();
                    } catch (InterruptedException e) {
                        movedInterrupted.set(true);
                    }
                    return JobOutcome.complete("moved");
                }));
        assertThat(bothStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(worker.metrics().claimStatements()).isEqualTo(1); // one claim, one token for both

        database.stealLease(pool.dataSource(), jobs.get(0).id(), "another-worker");

        await().atMost(WAIT).untilTrue(movedInterrupted); // its heartbeat found that lease gone
        keptMayFinish.countDown();
        assertThat(awaitTerminal(pool, jobs.get(1).id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(pool.get(jobs.get(0).id()).orElseThrow().lockedBy()).isEqualTo("another-worker");
        awaitCount(() -> worker.metrics().leasesLost(), 1);
        awaitCount(() -> worker.metrics().succeeded(), 1);
    }

    // Found by the fault suite: a connection cut between the commit of a batch of log lines and its
    // answer; the worker wrote the batch again, and the line was stored twice.
    @Test
    void logLinesWhoseAnswerWasLostAreStoredOnceWhenWrittenAgain() {
        Skiplock pool = client();
        AtomicBoolean dropNextLinesAnswer = new AtomicBoolean(true);
        DataSource flaky = LostAnswers.dropping(pool.dataSource(), "append_logs", dropNextLinesAnswer);
        Job job = pool.enqueue(JobRequest.of("work", new Work("x")));
        track(Skiplock.builder().dataSource(flaky).config(fastConfig().queue("default", 1).build())
                .handler("work", Work.class, context -> {
                    context.log("stdout", "first");
                    context.log("stderr", "second");
                    context.log("stdout", "third");
                    return JobOutcome.complete();
                })
                .build()).start();

        assertThat(awaitTerminal(pool, job.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(dropNextLinesAnswer).isFalse(); // the answer of one batch of lines was dropped
        assertThat(pool.events(job.id(), 0, 100)).filteredOn(event -> event.type().equals("log"))
                .extracting(event -> event.stream() + ": " + event.message())
                .containsExactly("stdout: first", "stderr: second", "stdout: third");
    }

    /**
     * An outcome whose write committed though its answer was lost with the connection is counted
     * as this worker's when the write is tried again (which then applies nothing): the job
     * succeeded, once, and a resumable handler is told so (a command's run is cleaned up). Before,
     * it was counted as a stale completion, with a warning that the outcome was discarded.
     */
    @Test
    void anOutcomeWhoseAnswerWasLostIsCountedAsWritten() {
        Skiplock pool = client();
        AtomicBoolean dropJobs = new AtomicBoolean(true);
        AtomicBoolean dropSuccesses = new AtomicBoolean(true);
        DataSource flaky = LostAnswers.dropping(LostAnswers.dropping(pool.dataSource(), "complete_jobs", dropJobs),
                "complete_successes", dropSuccesses);
        java.util.Set<java.util.UUID> completed = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Job job = pool.enqueue(JobRequest.of("work", new Work("x")));
        Skiplock worker = track(Skiplock.builder().dataSource(flaky).config(fastConfig().queue("default", 1).build())
                .handler("work", Work.class, new ResumableHandler<Work>() {
                    @Override
                    public JobOutcome handle(JobContext<Work> context) {
                        return JobOutcome.complete();
                    }

                    @Override
                    public java.util.Optional<JobOutcome> resume(JobContext<Work> context) {
                        return java.util.Optional.of(JobOutcome.complete());
                    }

                    @Override
                    public void completed(java.util.UUID jobId, java.util.UUID executionId) {
                        completed.add(jobId);
                    }
                })
                .build()).start();

        assertThat(awaitTerminal(pool, job.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(dropJobs.get() && dropSuccesses.get()).as("the answer of one completion was dropped").isFalse();
        awaitCount(() -> worker.metrics().succeeded(), 1);
        assertThat(worker.metrics().staleCompletions()).isZero();
        await().atMost(WAIT).until(() -> completed.contains(job.id()));
    }

    /**
     * After a write of outcomes that failed with its connection, an outcome the next write does not
     * apply counts as this worker's only if its own lease wrote it: here another lease (an adopter's,
     * as the test writes it) finished the job with the same status meanwhile, and the outcome is
     * stale. Forced: the first write fails before reaching the database; the other lease's outcome is
     * written before the second. Before (the claim token, kept through adoption, decided), the
     * adopter's outcome counted as this worker's: the job's failure was counted twice.
     */
    @Test
    void anOutcomeAnotherLeaseWroteAfterALostWriteIsStale() {
        Skiplock pool = client();
        java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<java.util.UUID> job = new java.util.concurrent.atomic.AtomicReference<>();
        AtomicBoolean armed = new AtomicBoolean();
        DataSource flaky = BeforeStatement.eachTimeOnItsConnection(
                LostAnswers.failing(pool.dataSource(), "complete_jobs", failures),
                BeforeStatement.sql(pool, "jobs", "complete_jobs"), connection -> {
                    if (armed.get() && writes.incrementAndGet() == 2) { // the write after the failed one
                        // in the write's own transaction (SQLite's write lock is the completer's)
                        Transactions.update(connection, "UPDATE skiplock_jobs SET status = 'failed', lease_token = ?"
                                + " WHERE id = ?", database.id(java.util.UUID.randomUUID()), database.id(job.get()));
                    }
                });
        Skiplock worker = track(Skiplock.builder().dataSource(flaky).config(fastConfig().queue("default", 1).build())
                .handler("work", Work.class, context -> JobOutcome.fail("boom"))
                .build()).start();
        failures.set(1);
        armed.set(true);
        job.set(pool.enqueue(JobRequest.of("work", new Work("x")).withMaxAttempts(1)).id());

        awaitCount(() -> worker.metrics().staleCompletions(), 1);
        assertThat(worker.metrics().failed()).isZero();
        assertThat(failures.get()).as("the first write failed").isZero();
    }

    /**
     * An adopter numbers its lines on from the place after the last recorded one, not from their
     * count: with a line missing (one the completer could not store at all; deleted here) the
     * count is the place of a line already stored, and the adopter's first line took that place
     * and was skipped as a repeat of it.
     */
    @Test
    void anAdopterLogsAfterTheLastRecordedLineEvenWithALineMissing() throws Exception {
        Skiplock pool = client();
        Job job = heldAfterLogging(pool, "one", "two", "three");
        Jdbc.update(pool.dataSource(), "DELETE FROM skiplock_job_events WHERE job_id = ? AND type = 'log' AND message = 'two'",
                database.id(job.id()));

        database.expireLease(pool.dataSource(), job.id());
        Skiplock adopter = started(builder(config -> config.queue("default", 1))
                .handler("work", Work.class, new Resuming(context -> {
                    context.log("stdout", "resumed after " + context.loggedLines("stdout"));
                    return JobOutcome.complete();
                })));

        assertThat(awaitTerminal(adopter, job.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(adopter.metrics().adopted()).isEqualTo(1);
        assertThat(logLines(pool, job)).containsExactly("one", "three", "resumed after 3");
    }

    /**
     * Found by the fault suite: a database restart while an adopter's resumed execution read how
     * far its output got (its first logged line) failed the attempt of a healthy job. The read
     * rides out a lost connection as the completer does: here its first two runs fail as on a cut
     * connection (SQLState 08006), and the resumed execution goes on in the same attempt.
     */
    @Test
    void aResumedExecutionRidesOutALostConnectionWhileReadingHowFarItsOutputGot() throws Exception {
        Skiplock pool = client();
        Job job = heldAfterLogging(pool, "one", "two");

        database.expireLease(pool.dataSource(), job.id());
        java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger(2);
        Skiplock adopter = started(Skiplock.builder().dataSource(LostAnswers.failing(pool.dataSource(), "count_logs", failures))
                .config(fastConfig().queue("default", 1).build())
                .handler("work", Work.class, new Resuming(context -> {
                    context.log("stdout", "resumed after " + context.loggedLines("stdout"));
                    return JobOutcome.complete();
                })));

        Job done = awaitTerminal(adopter, job.id());
        assertThat(failures.get()).as("count_logs runs left to fail").isZero();
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).as("the adopted attempt went on").isEqualTo(1);
        assertThat(done.lastError()).isNull();
        assertThat(logLines(pool, job)).containsExactly("one", "two", "resumed after 2");
    }

    /**
     * A job whose first worker logged {@code lines} to stdout, all stored, and then holds it: its
     * first heartbeat is 30 s away, so from the database's view it is paused.
     */
    private Job heldAfterLogging(Skiplock pool, String... lines) throws InterruptedException {
        CountDownLatch logged = new CountDownLatch(1);
        track(builder(config -> config.queue("default", 1).leaseTtl(Duration.ofSeconds(60))
                .heartbeatInterval(Duration.ofSeconds(30)).reaperInterval(Duration.ofSeconds(60)))
                .handler("work", Work.class, new Resuming(context -> {
                    for (String line : lines) {
                        context.log("stdout", line);
                    }
                    logged.countDown();
                    ContractBase.blockUntilInterrupted();
                    return JobOutcome.complete();
                })).build()).start();
        Job job = pool.enqueue(JobRequest.of("work", new Work("x")));
        assertThat(logged.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        await().atMost(WAIT).until(() -> logLines(pool, job).size() == lines.length);
        return job;
    }

    /** A resumable handler whose {@code handle} and {@code resume} both run {@code body}. */
    private record Resuming(JobHandler<Work> body) implements ResumableHandler<Work> {
        @Override
        public JobOutcome handle(JobContext<Work> context) throws Exception {
            return body.handle(context);
        }

        @Override
        public java.util.Optional<JobOutcome> resume(JobContext<Work> context) throws Exception {
            return java.util.Optional.of(body.handle(context));
        }
    }

    private static List<String> logLines(Skiplock skiplock, Job job) {
        return skiplock.events(job.id(), 0, 100).stream().filter(event -> event.type().equals("log"))
                .map(event -> event.message()).toList();
    }

    // Fault 8: a claim whose answer never reached the worker uses no attempt.
    @Test
    void claimWhoseAnswerWasLostIsGivenBackWithoutUsingTheAttempt() {
        Skiplock pool = client();
        AtomicBoolean dropNextClaimAnswer = new AtomicBoolean(true);
        DataSource flaky = LostAnswers.dropping(pool.dataSource(), "claim_jobs", dropNextClaimAnswer);
        Job job = pool.enqueue(JobRequest.of("work", new Work("x")).withMaxAttempts(1));
        Skiplock worker = track(Skiplock.builder().dataSource(flaky).config(fastConfig().queue("default", 1).build())
                .handler("work", Work.class, context -> JobOutcome.complete(context.attempt()))
                .build()).start(); // its first claim takes the job, and its answer is lost

        Job done = awaitTerminal(pool, job.id());
        assertThat(dropNextClaimAnswer).isFalse(); // the answer of one claim was dropped
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(done.result().asInt()).isEqualTo(1);
        assertThat(statuses(pool, job)).containsExactly("queued@0", "running@1", "queued@0", "running@1", "succeeded@1");
        assertThat(worker.metrics().adopted()).isZero();
    }

    // Fault 8, found again by the long fault run: the give-back at once failed too, and the heartbeat
    // skipped its retry whenever touching the worker registry failed first, until the lease ran out.
    @Test
    void lostClaimIsGivenBackByTheHeartbeatEvenWhileTouchingTheRegistryFails() {
        Skiplock pool = client();
        AtomicBoolean dropNextClaimAnswer = new AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicInteger unclaimFailures = new java.util.concurrent.atomic.AtomicInteger(1);
        java.util.concurrent.atomic.AtomicInteger touchFailures =
                new java.util.concurrent.atomic.AtomicInteger(Integer.MAX_VALUE);
        DataSource flaky = LostAnswers.failing(LostAnswers.failing(
                LostAnswers.dropping(pool.dataSource(), "claim_jobs", dropNextClaimAnswer),
                "unclaim_jobs", unclaimFailures), "touch_worker", touchFailures);
        Job job = pool.enqueue(JobRequest.of("work", new Work("x")).withMaxAttempts(1));
        Skiplock worker = track(Skiplock.builder().dataSource(flaky).config(fastConfig().queue("default", 1).build())
                .handler("work", Work.class, context -> JobOutcome.complete(context.attempt()))
                .build()).start(); // its first claim takes the job, its answer is lost, the give-back fails

        Job done = awaitTerminal(pool, job.id());
        assertThat(dropNextClaimAnswer).isFalse();
        assertThat(unclaimFailures.get()).isZero();
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(statuses(pool, job)).containsExactly("queued@0", "running@1", "queued@0", "running@1", "succeeded@1");
        assertThat(worker.metrics().adopted()).isZero();
    }

    // Fault 12: a worker that re-adopts its own job after a pause stops its old execution.
    @Test
    void workerThatAdoptsItsOwnJobAfterAPauseStopsItsOldExecution() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        AtomicBoolean firstInterrupted = new AtomicBoolean();
        AtomicInteger executions = new AtomicInteger();
        // No heartbeat within the test: the expired lease stays expired until the reaper clears it.
        Skiplock worker = started(builder(config -> config.queue("default", 2)
                .heartbeatInterval(Duration.ofSeconds(30)).leaseTtl(Duration.ofMinutes(1)))
                .handler("work", Work.class, context -> {
                    if (executions.incrementAndGet() == 1) {
                        firstStarted.countDown();
                        try {
                            blockUntilInterrupted();
                        } catch (InterruptedException e) {
                            firstInterrupted.set(true);
                        }
                        return JobOutcome.complete("first");
                    }
                    return JobOutcome.complete("second");
                }));
        Job job = worker.enqueue(JobRequest.of("work", new Work("x")).withMaxAttempts(3));
        assertThat(firstStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        database.expireLease(worker.dataSource(), job.id()); // as if the worker had been paused

        await().atMost(WAIT).untilTrue(firstInterrupted);
        Job done = awaitTerminal(worker, job.id());
        assertThat(worker.metrics().adopted()).isEqualTo(1);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("second"); // an in-process execution is lost: run again
        assertThat(done.attempt()).isEqualTo(2);
    }

    // Fault 6: an orphan is adopted however busy its queue, whichever node reaped it.
    @Test
    void orphanIsAdoptedWhileEnqueuesKeepItsQueuesWorkerAwake() throws Exception {
        Skiplock reaper = started(builder(config -> config.queue("other", 1)));
        Skiplock busy = started(builder(config -> config.queue("busy", 4)
                .reaperInterval(Duration.ofHours(1)).pollInterval(Duration.ofSeconds(2)))
                .handler("work", Work.class, context -> JobOutcome.complete(context.attempt())));
        Job orphan = reaper.enqueue(JobRequest.of("work", new Work("orphan")).withQueue("parking").withMaxAttempts(3));
        AtomicBoolean traffic = new AtomicBoolean(true);
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            while (traffic.get()) { // an enqueue every 100 ms: "busy"'s claimer never reaches its poll timeout
                reaper.enqueue(JobRequest.of("work", new Work("traffic")).withQueue("busy"));
                sleepMillis(100);
            }
        });
        try {
            await().atMost(WAIT).until(() -> busy.metrics().succeeded() >= 3); // the traffic flows
            database.makeOrphan(reaper.dataSource(), orphan.id(), "busy");

            Job done = awaitTerminal(reaper, orphan.id());
            assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
            assertThat(done.attempt()).isEqualTo(2);
            assertThat(busy.metrics().adopted()).isEqualTo(1);
        } finally {
            traffic.set(false);
            producer.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    // Fault 6, the backlog: the look for orphans once per poll interval follows the claim; a claim that
    // took every slot makes the next round look first. The look comes due when the test moves the
    // worker's clock; the poll interval is never reached in real time, so no wait ends unwoken (which
    // would tell the claimer to look first anyway).
    @Test
    void orphanIsAdoptedWhileABacklogFillsEverySlotOfItsQueue() {
        int backlog = 20;
        TestClock clock = new TestClock();
        Semaphore gate = new Semaphore(0);
        AtomicInteger backlogStarted = new AtomicInteger();
        Skiplock client = client();
        Skiplock worker = started(builder(config -> config.queue("full", 1).clock(clock)
                .reaperInterval(Duration.ofHours(1)).pollInterval(Duration.ofHours(1)))
                .handler("work", Work.class, context -> {
                    if (context.args().label().equals("orphan")) {
                        return JobOutcome.complete("adopted");
                    }
                    backlogStarted.incrementAndGet();
                    gate.tryAcquire(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    return JobOutcome.complete("backlog");
                }));
        Job orphan = client.enqueue(JobRequest.of("work", new Work("orphan")).withQueue("parking").withMaxAttempts(3));
        List<JobRequest> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < backlog; i++) {
            jobs.add(JobRequest.of("work", new Work("backlog")).withQueue("full"));
        }
        client.enqueueMany(jobs);
        try {
            await().atMost(WAIT).until(() -> backlogStarted.get() == 1); // the one slot is taken
            database.makeOrphan(client.dataSource(), orphan.id(), "full");
            // One backlog job ends at a time, each with the look due: every round's claim can take the one
            // free slot, and the orphan must still be adopted at the round after the first (the second job).
            while (worker.metrics().adopted() == 0 && backlogStarted.get() < backlog) {
                int before = backlogStarted.get();
                clock.advance(Duration.ofHours(2));
                gate.release();
                await().atMost(WAIT).pollInterval(Duration.ofMillis(5))
                        .until(() -> backlogStarted.get() > before || worker.metrics().adopted() > 0);
            }
            assertThat(worker.metrics().adopted()).isEqualTo(1);
            assertThat(backlogStarted.get()).as("backlog jobs started before the orphan was adopted").isLessThanOrEqualTo(3);
        } finally {
            gate.release(backlog);
        }
    }

    // The look for orphans due by the poll interval alone follows the claim: a job waiting when the
    // claimer wakes does not wait for it (issue #12: a job whose enqueue woke the claimer). The look
    // comes due while the one slot is held by a running job, so no round can take a slot, claim or
    // look until the test frees it (a round that takes no slot returns at once); then the waiting job
    // and the due look meet in one round. The claim must go first; the orphan is adopted next.
    // (Waiting instead for a finished probe and moving the clock raced with the round its freed slot
    // rang for, and with the listener's tell: either could come after the move, find no job and
    // rightly look.)
    @Test
    void aWaitingJobStartsBeforeTheLookForOrphansThatCameDue() throws Exception {
        TestClock clock = new TestClock();
        CountDownLatch resynced = new CountDownLatch(1);
        CountDownLatch holderStarted = new CountDownLatch(1);
        CountDownLatch holderMayFinish = new CountDownLatch(1);
        CountDownLatch jobStarted = new CountDownLatch(1);
        CountDownLatch jobMayFinish = new CountDownLatch(1);
        Skiplock worker = started(builder(config -> config.queue("solo", 1).clock(clock)
                .reaperInterval(Duration.ofHours(1)).pollInterval(Duration.ofHours(1)))
                .driver(resyncSignalling(FastPathContract.driver(client()), resynced))
                .handler("work", Work.class, context -> {
                    switch (context.args().label()) {
                        case "holder" -> {
                            holderStarted.countDown();
                            awaitIgnoringInterrupts(holderMayFinish);
                        }
                        case "job" -> {
                            jobStarted.countDown();
                            awaitIgnoringInterrupts(jobMayFinish);
                        }
                        default -> {
                        }
                    }
                    return JobOutcome.complete(context.args().label());
                }));
        try {
            if (database.notifiesAcrossProcesses()) {
                // A listener that connects tells the claimers to look (it may have missed a reaper's
                // word); told after the holder's claim, the claimer would rightly look first when the
                // slot frees. Told before, the holder's round looks first (nothing to adopt yet).
                assertThat(resynced.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            }
            worker.enqueue(JobRequest.of("work", new Work("holder")).withQueue("solo"));
            // The claimer's first round looks first (told at start), so the look is behind the holder's claim.
            assertThat(holderStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            Job orphan = worker.enqueue(JobRequest.of("work", new Work("orphan")).withQueue("parking").withMaxAttempts(3));
            database.makeOrphan(worker.dataSource(), orphan.id(), "solo");
            worker.enqueue(JobRequest.of("work", new Work("job")).withQueue("solo"));
            clock.advance(Duration.ofHours(2)); // the look is due

            holderMayFinish.countDown(); // the slot is free: one round, due to look, with a job waiting
            assertThat(jobStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(worker.metrics().adopted()).as("orphans adopted before the job started").isZero();

            jobMayFinish.countDown(); // its slot is free again: the next round looks first
            awaitCount(() -> worker.metrics().adopted(), 1);
        } finally {
            holderMayFinish.countDown();
            jobMayFinish.countDown();
        }
    }

    /**
     * {@code driver} whose notifier counts {@code resynced} down each time its listener's
     * {@code resync()} has returned: the worker's claimers have been told to look for orphans.
     */
    private static Driver resyncSignalling(Driver driver, CountDownLatch resynced) {
        return delegating(Driver.class, (method, args) -> {
            Object result = invoke(method, driver, args);
            if (!method.getName().equals("notifier")) {
                return result;
            }
            Notifier notifier = (Notifier) result;
            return delegating(Notifier.class, (notifierMethod, notifierArgs) -> {
                if (notifierMethod.getName().equals("start")) {
                    Notifier.Listener listener = (Notifier.Listener) notifierArgs[0];
                    notifierArgs = new Object[] {delegating(Notifier.Listener.class, (listenerMethod, listenerArgs) -> {
                        Object answer = invoke(listenerMethod, listener, listenerArgs);
                        if (listenerMethod.getName().equals("resync")) {
                            resynced.countDown();
                        }
                        return answer;
                    })};
                }
                return invoke(notifierMethod, notifier, notifierArgs);
            });
        });
    }

    /** A call on a proxy: its method and arguments. */
    @FunctionalInterface
    private interface Call {
        Object on(java.lang.reflect.Method method, Object[] args) throws Throwable;
    }

    private static <T> T delegating(Class<T> type, Call call) {
        return type.cast(java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> call.on(method, args)));
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    // Fault 6, the notification path: a reaper on a node that does not serve the queue tells the nodes that do.
    @Test
    void reaperOnAnotherNodeAnnouncesTheOrphansItFound() throws Exception {
        assumeThat(database.notifiesAcrossProcesses())
                .as("%s has no notifications between processes; its claimers find orphans by polling", database.name())
                .isTrue();
        CountDownLatch started = new CountDownLatch(1);
        // Every worker of "busy" finds orphans only when told: its own reaper and its poll are an hour away.
        Consumer<SkiplockConfig.Builder> toldOnly = config -> config.queue("busy", 1).leaseTtl(Duration.ofMinutes(1))
                .heartbeatInterval(Duration.ofSeconds(30)).reaperInterval(Duration.ofHours(1))
                .pollInterval(Duration.ofHours(1));
        Skiplock first = started(builder(toldOnly).handler("work", Work.class, context -> {
            started.countDown();
            blockUntilInterrupted();
            return JobOutcome.complete("first");
        }));
        Job job = first.enqueue(JobRequest.of("work", new Work("x")).withQueue("busy").withMaxAttempts(3));
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        Skiplock adopter = started(builder(toldOnly)
                .handler("work", Work.class, context -> JobOutcome.complete("adopted")));
        started(builder(config -> config.queue("other", 1))); // reaps every 300 ms; serves no "busy"

        database.expireLease(first.dataSource(), job.id()); // as if "first" were paused past its lease

        await().atMost(WAIT).until(() -> adopter.metrics().adopted() + first.metrics().adopted() == 1);
        // Its in-process execution was lost with the lease: retried (queued with backoff, no wake-up to claim it here).
        await().atMost(WAIT).until(() -> adopter.get(job.id()).orElseThrow().lastError() != null);
        assertThat(adopter.get(job.id()).orElseThrow().lastError()).isEqualTo("worker lost during attempt 1 (lease expired)");
    }

    private List<String> statuses(Skiplock skiplock, Job job) {
        return skiplock.events(job.id(), 0, 100).stream().filter(event -> event.type().equals("status"))
                .map(event -> event.status() + "@" + event.attempt()).toList();
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis); // paces the test's own producer; nothing waits on a condition here
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
