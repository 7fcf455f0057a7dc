package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobEvent;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.JobStore;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** DESIGN §2: fencing, heartbeat loss, reaper + adoption, graceful shutdown. */
abstract class LeaseContract extends ContractBase {

    record Work(String label) {
    }

    @Test
    void workerPausedPastItsLeaseCannotFinalizeAfterAnotherWorkerTookTheJob() throws Exception {
        CountDownLatch pausedWorkerMayFinish = new CountDownLatch(1);
        CountDownLatch pausedWorkerStarted = new CountDownLatch(1);
        // Worker A: its first heartbeat is 30 s away, so from the database's view it is paused.
        Skiplock workerA = started(builder(config -> config.queue("default", 1)
                .leaseTtl(Duration.ofSeconds(60)).heartbeatInterval(Duration.ofSeconds(30))
                .reaperInterval(Duration.ofSeconds(60)))
                .handler("work", Work.class, context -> {
                    pausedWorkerStarted.countDown();
                    pausedWorkerMayFinish.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                    return JobOutcome.complete("from A");
                }));
        Job job = workerA.enqueue(JobRequest.of("work", new Work("x")).withMaxAttempts(3));
        assertThat(pausedWorkerStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        database.expireLease(workerA.dataSource(), job.id());
        Skiplock workerB = started(builder(config -> config.queue("default", 1))
                .handler("work", Work.class, context -> JobOutcome.complete("from B")));
        Job doneByB = awaitStatus(workerB, job.id(), JobStatus.SUCCEEDED);
        pausedWorkerMayFinish.countDown();

        await().atMost(WAIT).until(() -> workerA.metrics().staleCompletions() == 1);
        Job finalJob = workerB.get(job.id()).orElseThrow();
        assertThat(finalJob.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(finalJob.result().asText()).isEqualTo("from B");
        assertThat(finalJob.attempt()).isEqualTo(2);
        assertThat(finalJob.finishedAt()).isEqualTo(doneByB.finishedAt());
        assertThat(workerA.metrics().succeeded()).isZero();
        assertThat(workerB.metrics().adopted()).isEqualTo(1);
        awaitCount(() -> workerB.metrics().succeeded(), 1);
    }

    @Test
    void heartbeatThatFindsItsLeaseGoneStopsTheExecution() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("work", Work.class, context -> {
                    started.countDown();
                    try {
                        ContractBase.blockUntilInterrupted(); // long work; losing the lease must end it
                    } catch (InterruptedException e) {
                        interrupted.set(true);
                    }
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("work", new Work("x")));
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        database.stealLease(worker.dataSource(), job.id(), "another-worker");

        await().atMost(WAIT).untilTrue(interrupted);
        await().atMost(WAIT).until(() -> worker.metrics().leasesLost() == 1);
        Job current = worker.get(job.id()).orElseThrow();
        assertThat(current.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(current.lockedBy()).isEqualTo("another-worker");
        assertThat(worker.metrics().succeeded()).isZero();
    }

    /**
     * A worker whose heartbeat cannot extend its lease (forced: every heartbeat statement waits in
     * the pool until the test ends, as one hung on a connection cut without a reset would) stops
     * the execution once the lease has passed by its own clock, counted as a lost lease: past it,
     * another worker may take the job. Before, the handler ran on for good: only a heartbeat's
     * answer, or an adoption by this worker, stopped it (no reaper runs here).
     */
    @Test
    void anExecutionWhoseLeaseCouldNotBeExtendedStopsWhenTheLeaseEnds() throws Exception {
        CountDownLatch heartbeatsMayRun = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        Skiplock client = client();
        String heartbeat = BeforeStatement.sql(client, "jobs", "heartbeat");
        javax.sql.DataSource hanging = BeforeStatement.eachTime(client.dataSource(), heartbeat,
                () -> heartbeatsMayRun.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        try {
            Skiplock worker = started(Skiplock.builder().dataSource(hanging)
                    .config(fastConfig().reaperInterval(Duration.ofMinutes(10)).queue("default", 1).build())
                    .handler("work", Work.class, context -> {
                        started.countDown();
                        try {
                            ContractBase.blockUntilInterrupted(); // long work; a lease that lapsed must end it
                        } catch (InterruptedException e) {
                            interrupted.set(true);
                        }
                        return JobOutcome.complete();
                    }));
            worker.enqueue(JobRequest.of("work", new Work("x")));
            assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

            await().atMost(WAIT).untilTrue(interrupted);
            assertThat(worker.metrics().leasesLost()).isEqualTo(1);
            assertThat(worker.metrics().succeeded()).isZero();
        } finally {
            heartbeatsMayRun.countDown();
        }
    }

    /**
     * A close ends although a claimer's statement hangs (forced: the claim waits in the pool until
     * the test ends, as one on a connection cut without a reset would): it waits for the claimer a
     * while, then goes on with the rest of the shutdown. Before, it waited for good.
     */
    @Test
    void aCloseEndsThoughAClaimHangs() throws Exception {
        CountDownLatch claimsMayRun = new CountDownLatch(1);
        CountDownLatch claimHangs = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean();
        Skiplock client = client();
        String claim = BeforeStatement.sql(client, "jobs", "claim_jobs");
        javax.sql.DataSource hanging = BeforeStatement.eachTime(client.dataSource(), claim, () -> {
            if (armed.get()) {
                claimHangs.countDown();
                claimsMayRun.await(3 * WAIT.toSeconds(), TimeUnit.SECONDS); // past the close's bound below
            }
        });
        try {
            Skiplock worker = track(Skiplock.builder().dataSource(hanging).config(fastConfig().queue("default", 1).build())
                    .handler("work", Work.class, context -> JobOutcome.complete()).build()).start();
            armed.set(true);
            assertThat(claimHangs.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("a claim hangs").isTrue();

            java.util.concurrent.CompletableFuture<Void> closing = java.util.concurrent.CompletableFuture.runAsync(worker::close);

            // its wait for the claimer is 5 s; on SQLite the hung claim also holds the write lock, which
            // the worker's stop in the registry waits for (10 s at most), and the pool's close then
            // waits for the claim's connection (about 21 s in all here)
            closing.get(45, TimeUnit.SECONDS);
        } finally {
            claimsMayRun.countDown();
        }
    }

    @Test
    void gracefulShutdownLetsRunningJobsFinish() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Skiplock worker = track(builder(config -> config.queue("default", 1).shutdownTimeout(Duration.ofSeconds(10)))
                .handler("work", Work.class, context -> {
                    started.countDown();
                    // Uninterrupted work that takes a moment: shutdown must wait for it.
                    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
                    while (System.nanoTime() < end) {
                        Thread.onSpinWait();
                    }
                    return JobOutcome.complete("finished");
                }).build()).start();
        Job job = worker.enqueue(JobRequest.of("work", new Work("x")));
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        worker.close();

        Job done = client().get(job.id()).orElseThrow();
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("finished");
    }

    @Test
    void shutdownReleasesJobsStillRunningAtTheDeadlineForAnotherWorker() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Skiplock first = track(builder(config -> config.queue("default", 1).shutdownTimeout(Duration.ofMillis(300)))
                .handler("work", Work.class, context -> {
                    started.countDown();
                    ContractBase.blockUntilInterrupted(); // outlives the shutdown deadline on purpose
                    return JobOutcome.complete("first");
                }).build()).start();
        Job job = first.enqueue(JobRequest.of("work", new Work("x")).withMaxAttempts(1));
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        first.close();

        Skiplock client = client();
        Job released = client.get(job.id()).orElseThrow();
        assertThat(released.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(released.lockedBy()).isNull();
        assertThat(released.attempt()).isEqualTo(1);
        assertThat(released.maxAttempts()).isEqualTo(2);
        assertThat(released.lastError()).isEqualTo("released at worker shutdown during attempt 1");
        assertThat(first.metrics().released()).isEqualTo(1);

        Skiplock second = started(builder(config -> config.queue("default", 1))
                .handler("work", Work.class, context -> JobOutcome.complete("second")));
        Job done = awaitStatus(second, job.id(), JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.result().asText()).isEqualTo("second");
        assertThat(client.events(job.id(), 0, 100)).filteredOn(event -> event.type().equals("status"))
                .extracting(JobEvent::status, JobEvent::attempt, JobEvent::message).containsExactly(
                        tuple("queued", 0, null), tuple("running", 1, null),
                        tuple("queued", 1, "released at worker shutdown during attempt 1"),
                        tuple("running", 2, null), tuple("succeeded", 2, null));
    }

    /**
     * A close called on an interrupted thread (a container's shutdown hook, a test's timeout) still
     * stops every part of the worker: the job still running is released at once (the interrupt ends
     * the wait for handlers) and the registry shows the worker stopped; the interrupt is kept.
     * Before, the first queue's claimer's join threw at once: the other queue's claimer went on
     * claiming, nothing was released and the worker stayed active in the registry.
     */
    @Test
    void anInterruptedCloseStillStopsTheWholeWorker() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Skiplock worker = track(builder(config -> config.queue("first", 1).queue("second", 1)
                .shutdownTimeout(Duration.ofSeconds(30)))
                .handler("work", Work.class, context -> {
                    started.countDown();
                    ContractBase.blockUntilInterrupted();
                    return JobOutcome.complete();
                }).build()).start();
        Job job = worker.enqueue(JobRequest.of("work", new Work("x")).withQueue("second"));
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        Thread.currentThread().interrupt();
        worker.close();
        assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();

        Skiplock client = client();
        Job released = client.get(job.id()).orElseThrow();
        assertThat(released.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(released.lastError()).isEqualTo("released at worker shutdown during attempt 1");
        assertThat(client.workers()).singleElement().extracting(dev.skiplock.WorkerInfo::status).isEqualTo("stopped");
    }

    /**
     * A shutdown waits for a handler that completed its job in its own transaction and has not yet
     * committed it, as it waits for a running one (forced: the handler waits inside the transaction,
     * after its completion, until the close has been under way for a moment). Before, the close went
     * on at once and interrupted the handler's thread: its completion rolled back with its own writes.
     */
    @Test
    void shutdownWaitsForAHandlerCommittingItsOwnCompletion() throws Exception {
        CountDownLatch completed = new CountDownLatch(1);
        CountDownLatch mayCommit = new CountDownLatch(1);
        Skiplock worker = track(builder(config -> config.queue("default", 1).shutdownTimeout(Duration.ofSeconds(30)))
                .handler("work", Work.class, context -> {
                    context.inTransaction(connection -> {
                        context.completeInTransaction(connection, "committed");
                        completed.countDown();
                        if (!mayCommit.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                            throw new IllegalStateException("the test did not let the transaction commit");
                        }
                        return null;
                    });
                    return JobOutcome.complete();
                }).build()).start();
        Job job = worker.enqueue(JobRequest.of("work", new Work("x")));
        assertThat(completed.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        java.util.concurrent.CompletableFuture<Void> closing = java.util.concurrent.CompletableFuture.runAsync(worker::close);
        try {
            closing.get(1, TimeUnit.SECONDS); // a close that does not wait ends here, having stopped the handler
        } catch (java.util.concurrent.TimeoutException stillWaiting) {
            // the close waits for the handler
        }
        mayCommit.countDown();
        closing.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        Job done = client().get(job.id()).orElseThrow();
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("committed");
    }

    /**
     * One reaper run clears every expired lease, however many a dead node left: PostgreSQL's
     * statement clears at most 1,000, and the run repeats it while it finds its limit. Before, a run
     * cleared 1,000 of these 2,500 orphans and left the rest to the next two intervals.
     */
    @Test
    void oneReaperRunClearsEveryExpiredLeaseHoweverMany() {
        Skiplock client = client();
        JobStore store = FastPathContract.store(client);
        int orphans = 2_500;
        client.enqueueMany(IntStream.range(0, orphans).mapToObj(i -> JobRequest.of("work", new Work("w" + i))).toList());
        assertThat(store.claimJobs(new ClaimParams("default", "a-dead-node", "its-host", UUID.randomUUID(), 60_000,
                "[]"), orphans)).hasSize(orphans);
        database.expireEveryLease(client.dataSource());

        assertThat(store.reapExpiredLeases()).containsExactly(entry("default", orphans));

        assertThat(Jdbc.query(client.dataSource(),
                "SELECT count(*) FROM skiplock_jobs WHERE status = 'running' AND lease_token IS NULL",
                row -> row.getLong(1))).containsExactly((long) orphans);
    }

    /**
     * A run whose later round fails answers what its earlier rounds cleared (they committed), so that
     * it is counted and its queues' claimers are told; the next run takes the rest. Before, the failure
     * went up and the cleared leases were never counted. (SQLite's first round clears every lease, and
     * its second, empty, fails.)
     */
    @Test
    void aReaperRunWhoseLaterRoundFailsAnswersWhatItCleared() throws Exception {
        Skiplock client = client();
        int orphans = 2_500;
        client.enqueueMany(IntStream.range(0, orphans).mapToObj(i -> JobRequest.of("work", new Work("w" + i))).toList());
        assertThat(FastPathContract.store(client).claimJobs(new ClaimParams("default", "a-dead-node", "its-host",
                UUID.randomUUID(), 60_000, "[]"), orphans)).hasSize(orphans);
        database.expireEveryLease(client.dataSource());
        java.util.concurrent.atomic.AtomicInteger rounds = new java.util.concurrent.atomic.AtomicInteger();
        JobStore failingSecondRound = new JobStore(BeforeStatement.onPrepare(client.dataSource(),
                BeforeStatement.sql(client, "jobs", "reap_expired_leases"), () -> {
                    if (rounds.incrementAndGet() == 2) {
                        throw new java.sql.SQLException("the second round's connection is gone");
                    }
                }), FastPathContract.driver(client));

        java.util.Map<String, Integer> reaped = failingSecondRound.reapExpiredLeases();

        long cleared = Jdbc.query(client.dataSource(),
                "SELECT count(*) FROM skiplock_jobs WHERE status = 'running' AND lease_token IS NULL",
                row -> row.getLong(1)).getFirst();
        assertThat(cleared).isPositive();
        assertThat(reaped).containsExactly(entry("default", (int) cleared));
    }
}
