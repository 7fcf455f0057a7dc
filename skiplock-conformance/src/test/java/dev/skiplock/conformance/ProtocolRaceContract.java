package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStateException;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.spi.Driver;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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
        awaitCount(() -> worker.metrics().staleFinalizations(), 1);
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
    void orphanIsAdoptedWhileEnqueuesKeepItsQueuesWorkerAwake() {
        Skiplock reaper = started(builder(config -> config.queue("other", 1)));
        Skiplock busy = started(builder(config -> config.queue("busy", 4)
                .reaperInterval(Duration.ofHours(1)).pollInterval(Duration.ofSeconds(2)))
                .handler("work", Work.class, context -> JobOutcome.complete(context.attempt())));
        Job orphan = reaper.enqueue(JobRequest.of("work", new Work("orphan")).withQueue("parking").withMaxAttempts(3));
        AtomicBoolean traffic = new AtomicBoolean(true);
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            while (traffic.get()) { // an enqueue every 100 ms: "busy"'s fetcher never reaches its poll timeout
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
            producer.join();
        }
    }

    // Fault 6, the notification path: a reaper on a node that does not serve the queue tells the nodes that do.
    @Test
    void reaperOnAnotherNodeAnnouncesTheOrphansItFound() throws Exception {
        assumeThat(database.notifiesAcrossProcesses())
                .as("%s has no notifications between processes; its fetchers find orphans by polling", database.name())
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

    // Fault 7: retention never deletes a job that a retry made live again.
    @Test
    void retentionDoesNotDeleteAJobRetriedWhileItsDeleteWaited() throws Exception {
        assumeThat(database.concurrentWriters()).as("%s has one writer at a time", database.name()).isTrue();
        Skiplock client = client();
        Job job = client.enqueue(JobRequest.of("work", new Work("x")));
        client.cancel(job.id());
        Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs SET finished_at = now() - interval '1 hour' WHERE id = ?",
                job.id());
        JobStore store = new JobStore(client.dataSource(), driver(client));

        try (Connection retrying = client.dataSource().getConnection()) {
            retrying.setAutoCommit(false);
            Transactions.update(retrying, "UPDATE skiplock_jobs SET status = 'queued', finished_at = NULL WHERE id = ?", job.id());
            CompletableFuture<Integer> prune = CompletableFuture.supplyAsync(() -> store.pruneFinished(60_000, 1000));
            Transactions.awaitBlocked(client.dataSource(), "DELETE FROM skiplock_jobs", prune);
            retrying.commit();
            prune.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }

        assertThat(client.get(job.id())).as("the retried job still exists").isPresent();
        assertThat(client.get(job.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
    }

    // Fault 2: two dependencies finishing in concurrent transactions release their dependent.
    @Test
    void dependentIsReleasedWhenItsTwoDependenciesSucceedInConcurrentTransactions() throws Exception {
        assumeThat(database.concurrentWriters()).as("%s has one writer at a time", database.name()).isTrue();
        Skiplock client = client();
        Job first = client.enqueue(JobRequest.of("work", new Work("a")).withQueue("parking"));
        Job second = client.enqueue(JobRequest.of("work", new Work("b")).withQueue("parking"));
        Job dependent = client.enqueue(JobRequest.of("work", new Work("c")).withQueue("parking")
                .withDependsOn(List.of(first.id(), second.id())));
        assertThat(dependent.status()).isEqualTo(JobStatus.WAITING);
        String succeed = "UPDATE skiplock_jobs SET status = 'succeeded', finished_at = now() WHERE id = ?";

        try (Connection one = client.dataSource().getConnection(); Connection two = client.dataSource().getConnection()) {
            one.setAutoCommit(false);
            two.setAutoCommit(false);
            Transactions.update(one, succeed, first.id()); // its trigger sees the second still queued
            CompletableFuture<Integer> secondSucceeds = CompletableFuture.supplyAsync(
                    () -> Transactions.update(two, succeed, second.id()));
            Transactions.awaitBlocked(client.dataSource(), "UPDATE skiplock_jobs", secondSucceeds);
            one.commit();
            secondSucceeds.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            two.commit();
        }

        // No worker runs here, so no backstop: the triggers alone must have released it.
        assertThat(client.get(dependent.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
    }

    // Fault 10: a caller's open transaction that enqueued a dependent does not stall the worker.
    @Test
    void callerTransactionEnqueuingADependentDoesNotStallTheWorkerFinishingItsDependency() throws Exception {
        assumeThat(database.concurrentWriters()).as("%s has one writer at a time", database.name()).isTrue();
        CountDownLatch parentMayFinish = new CountDownLatch(1);
        Skiplock worker = started(builder(config -> config.queue("default", 2))
                .handler("work", Work.class, context -> {
                    if (context.args().label().equals("parent")) {
                        parentMayFinish.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                    }
                    return JobOutcome.complete(context.args().label());
                }));
        Job parent = worker.enqueue(JobRequest.of("work", new Work("parent")));
        awaitStatus(worker, parent.id(), JobStatus.RUNNING);

        Job child;
        try (Connection caller = worker.dataSource().getConnection()) {
            caller.setAutoCommit(false);
            child = worker.enqueue(caller, JobRequest.of("work", new Work("child")).withDependsOn(List.of(parent.id())));
            assertThat(child.status()).isEqualTo(JobStatus.WAITING);
            parentMayFinish.countDown();
            // The caller's transaction is still open: the parent's outcome must not wait for it.
            awaitStatus(worker, parent.id(), JobStatus.SUCCEEDED);
            caller.commit();
        }

        // The parent finished before the child's enqueue committed: the backstop releases the child.
        Job done = awaitTerminal(worker, child.id());
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
    }

    // The backstop of fault 10 settles a stranded job however many jobs rightly wait before it.
    @Test
    void waitingJobWhoseDependencySucceededUnseenIsSettledBehindAThousandRightlyWaitingOnes() {
        Skiplock client = client();
        Job unfinished = client.enqueue(JobRequest.of("work", new Work("unfinished")).withQueue("parking"));
        List<JobRequest> waiting = java.util.stream.IntStream.range(0, 1001).mapToObj(i -> JobRequest.of("work",
                new Work("waits")).withQueue("parking").withDependsOn(List.of(unfinished.id()))).toList();
        client.enqueueMany(waiting);
        Job finished = client.enqueue(JobRequest.of("work", new Work("finished")).withQueue("parking"));
        Job stranded = client.enqueue(JobRequest.of("work", new Work("stranded")).withQueue("parking")
                .withDependsOn(List.of(unfinished.id())));
        Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs SET status = 'succeeded' WHERE id = ?",
                database.id(finished.id()));
        // As if "finished" had succeeded while "stranded" was being enqueued: its trigger never saw the edge.
        Jdbc.update(client.dataSource(), "UPDATE skiplock_job_dependencies SET depends_on = ? WHERE job_id = ?",
                database.id(finished.id()), database.id(stranded.id()));

        started(builder(config -> config.queue("other", 1))); // its reaper runs settle_waiting_jobs

        Job settled = awaitStatus(client, stranded.id(), JobStatus.QUEUED);
        assertThat(settled.lastError()).isNull();
        assertThat(Jdbc.query(client.dataSource(), "SELECT count(*) FROM skiplock_jobs WHERE status = 'waiting'",
                row -> row.getLong(1))).containsExactly(1001L); // the rightly waiting ones still wait
    }

    @Test
    void enqueueWithDependenciesOnAnAutocommitConnectionIsRejected() throws Exception {
        Skiplock client = client();
        Job parent = client.enqueue(JobRequest.of("work", new Work("parent")));
        try (Connection caller = client.dataSource().getConnection()) {
            assertThat(caller.getAutoCommit()).isTrue();
            assertThatThrownBy(() -> client.enqueue(caller, JobRequest.of("work", new Work("child"))
                    .withDependsOn(List.of(parent.id()))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connection");
        }
        assertThat(client.list(dev.skiplock.JobQuery.all()).jobs()).hasSize(1); // nothing was written
    }

    // Fault 12: a retry re-checks dependencies.
    @Test
    void retryOfAJobWhoseDependencyFailedIsRefusedNamingIt() {
        Skiplock client = client();
        Job parent = client.enqueue(JobRequest.of("work", new Work("parent")));
        Job child = client.enqueue(JobRequest.of("work", new Work("child")).withDependsOn(List.of(parent.id())));
        client.cancel(parent.id());
        assertThat(client.get(child.id()).orElseThrow().status()).isEqualTo(JobStatus.FAILED);

        assertThatThrownBy(() -> client.retry(child.id()))
                .isInstanceOf(JobStateException.class)
                .hasMessageContaining(parent.id().toString()).hasMessageContaining("cancelled");
        assertThat(client.get(child.id()).orElseThrow().status()).isEqualTo(JobStatus.FAILED);
    }

    @Test
    void retryOfAJobWhoseDependencyIsRetriedWaitsForItAgain() {
        Skiplock client = client();
        Job parent = client.enqueue(JobRequest.of("work", new Work("parent")));
        Job child = client.enqueue(JobRequest.of("work", new Work("child")).withDependsOn(List.of(parent.id())));
        client.cancel(parent.id());
        client.retry(parent.id());
        Job skipped = client.get(child.id()).orElseThrow();
        assertThat(skipped.status()).isEqualTo(JobStatus.FAILED);

        Job retried = client.retry(child.id());

        assertThat(retried.status()).isEqualTo(JobStatus.WAITING);
        assertThat(client.get(child.id()).orElseThrow().status()).isEqualTo(JobStatus.WAITING);
    }

    @Test
    void retryWhileAnotherLiveJobHoldsTheUniqueKeyIsAConflictNamingTheKey() {
        Skiplock client = client();
        Job first = client.enqueue(JobRequest.of("work", new Work("a")).withUniqueKey("nightly"));
        client.cancel(first.id());
        Job second = client.enqueue(JobRequest.of("work", new Work("b")).withUniqueKey("nightly"));
        assertThat(second.id()).isNotEqualTo(first.id());

        assertThatThrownBy(() -> client.retry(first.id()))
                .isInstanceOf(JobStateException.class).hasMessageContaining("'nightly'");
        assertThat(client.get(first.id()).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
    }

    // Fault 1: what one job carries never blocks another job's outcome.
    @Test
    void nulBytesAndLoneSurrogatesInOutcomesLogsAndProgressHarmOnlyTheirJob() {
        Skiplock worker = started(builder(config -> config.queue("default", 4))
                .handler("hostile", Work.class, context -> {
                    context.log("stdout", "a\u0000b");
                    context.log("stderr", "\uD800x");
                    assertThat(context.progress(java.util.Map.of("p", "x\u0000"))).isTrue();
                    if (context.args().label().equals("throw")) {
                        throw new IllegalStateException("boom\u0000\uDC00");
                    }
                    return JobOutcome.complete(java.util.Map.of("r\u0000", "\u0000"));
                })
                .handler("work", Work.class, context -> JobOutcome.complete("fine")));
        Job returns = worker.enqueue(JobRequest.of("hostile", new Work("return")));
        Job throwing = worker.enqueue(JobRequest.of("hostile", new Work("throw")).withMaxAttempts(1));
        Job healthy = worker.enqueue(JobRequest.of("work", new Work("fine")));

        assertThat(awaitTerminal(worker, healthy.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        Job returned = awaitTerminal(worker, returns.id());
        assertThat(returned.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(returned.result().path("r\uFFFD").asText()).isEqualTo("\uFFFD");
        Job thrown = awaitTerminal(worker, throwing.id());
        assertThat(thrown.status()).isEqualTo(JobStatus.FAILED);
        assertThat(thrown.lastError()).endsWith("boom\uFFFD\uFFFD");
        for (Job job : List.of(returns, throwing)) {
            assertThat(worker.events(job.id(), 0, 100)).filteredOn(event -> event.type().equals("log"))
                    .extracting(event -> event.stream() + ":" + event.message())
                    .containsExactly("stdout:a\uFFFDb", "stderr:\uFFFDx"); // each line once
            assertThat(worker.events(job.id(), 0, 100)).filteredOn(event -> event.type().equals("progress"))
                    .extracting(event -> event.data().path("p").asText()).containsExactly("x\uFFFD");
        }
    }

    @Test
    void batchTheDatabaseRejectsForOneJobsDataIsSplitAndOnlyThatJobIsAffected() {
        Skiplock pool = client();
        DataSource rejecting = LostAnswers.rejecting(pool.dataSource(), "POISON");
        CountDownLatch release = new CountDownLatch(1);
        Skiplock worker = track(Skiplock.builder().dataSource(rejecting).config(fastConfig().queue("default", 4).build())
                .handler("work", Work.class, context -> {
                    release.await(WAIT.toSeconds(), TimeUnit.SECONDS); // all four finish together: one batch
                    context.log("stdout", "line of " + context.args().label());
                    if (context.args().label().equals("bad-log")) {
                        context.log("stdout", "POISON");
                    }
                    return JobOutcome.complete(context.args().label().equals("bad-result") ? "POISON" : "ok");
                }).build()).start();
        List<Job> jobs = pool.enqueueMany(List.of(JobRequest.of("work", new Work("good")),
                JobRequest.of("work", new Work("bad-log")), JobRequest.of("work", new Work("bad-result")),
                JobRequest.of("work", new Work("fine"))));
        await().atMost(WAIT).until(() -> pool.list(dev.skiplock.JobQuery.all().withStatus(JobStatus.RUNNING))
                .jobs().size() == 4);
        release.countDown();

        List<Job> done = jobs.stream().map(job -> awaitTerminal(pool, job.id())).toList();
        assertThat(done).extracting(job -> job.status()).containsExactly(JobStatus.SUCCEEDED, JobStatus.SUCCEEDED,
                JobStatus.FAILED, JobStatus.SUCCEEDED);
        assertThat(done.get(2).lastError()).isEqualTo("the outcome (succeeded) could not be stored");
        for (Job job : done) {
            List<String> lines = pool.events(job.id(), 0, 100).stream().filter(event -> event.type().equals("log"))
                    .map(dev.skiplock.JobEvent::message).toList();
            if (job.id().equals(jobs.get(1).id())) {
                assertThat(lines).containsExactly("line of bad-log",
                        "[skiplock: a log line of 6 characters could not be stored]");
            } else {
                assertThat(lines).hasSize(1).allMatch(line -> line.startsWith("line of ")); // written once
            }
        }
    }

    @Test
    void nulBytesAndInvalidUtf8InACommandsOutputAreStoredReplaced() throws Exception {
        java.nio.file.Path runs = java.nio.file.Files.createTempDirectory("skiplock-runs-");
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("command", com.fasterxml.jackson.databind.JsonNode.class,
                        dev.skiplock.server.SkiplockServer.commandRunner(runs)));
        String script = "printf 'a\\000b\\377c\\n'; printf 'x\\000\\n' >&2; printf 'no newline \\000'";
        Job job = worker.enqueue(JobRequest.of("command", java.util.Map.of("argv", List.of("sh", "-c", script))));
        Job next = worker.enqueue(JobRequest.of("command", java.util.Map.of("argv", List.of("true"))));

        assertThat(awaitTerminal(worker, job.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(awaitTerminal(worker, next.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(worker.events(job.id(), 0, 100)).filteredOn(event -> event.type().equals("log"))
                .extracting(event -> event.stream() + ":" + event.message())
                .containsExactlyInAnyOrder("stdout:a\uFFFDb\uFFFDc", "stderr:x\uFFFD", "stdout:no newline \uFFFD");
    }

    private List<String> statuses(Skiplock skiplock, Job job) {
        return skiplock.events(job.id(), 0, 100).stream().filter(event -> event.type().equals("status"))
                .map(event -> event.status() + "@" + event.attempt()).toList();
    }

    private static Driver driver(Skiplock skiplock) {
        return ServiceLoader.load(Driver.class).stream().map(ServiceLoader.Provider::get)
                .filter(candidate -> candidate.name().equals(skiplock.driverName())).findFirst().orElseThrow();
    }

    private static void awaitIgnoringInterrupts(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // the worker lost this execution's lease: it finishes anyway, as a stale execution would
            }
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis); // paces the test's own producer; nothing waits on a condition here
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
