package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStateException;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.spi.Driver;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Dependencies, retries and retention against concurrent writers (issue #10, faults 2, 7, 10, 12):
 * two connections whose statements the test orders, a caller's transaction held open across a
 * worker's completion. Each of these failed before the fix.
 */
abstract class DependencyRaceContract extends ContractBase {

    record Work(String label) {
    }

    // Fault 7: retention never deletes a job that a retry made live again.
    @Test
    void retentionDoesNotDeleteAJobRetriedWhileItsDeleteWaited() throws Exception {
        assumeThat(database.concurrentWriters()).as("%s has one writer at a time", database.name()).isTrue();
        Skiplock client = client();
        Job job = client.enqueue(JobRequest.of("work", new Work("x")));
        client.cancel(job.id());
        JobStore store = new JobStore(client.dataSource(), driver(client));

        try (Connection retrying = client.dataSource().getConnection()) {
            retrying.setAutoCommit(false);
            Transactions.update(retrying, "UPDATE skiplock_jobs SET status = 'queued', finished_at = NULL WHERE id = ?", job.id());
            CompletableFuture<Integer> prune = CompletableFuture.supplyAsync(() -> store.pruneFinished(0, 1000));
            Transactions.awaitBlocked(client.dataSource(), "DELETE FROM skiplock_jobs", prune);
            retrying.commit();
            prune.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }

        assertThat(client.get(job.id())).as("the retried job still exists").isPresent();
        assertThat(client.get(job.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
    }

    /**
     * Two retries of one succeeded job that wait on the same row lock: the first retries it and
     * writes its success event as a row (PostgreSQL read it from the job row until then, migration
     * 0012); the second, re-checking the row it finally locks, finds it queued and changes nothing.
     * Both retries are held at the row lock of a third transaction until both wait there.
     */
    @Test
    void twoRetriesOfASucceededJobWaitingOnEachOtherRetryItOnce() throws Exception {
        assumeThat(database.concurrentWriters()).as("%s has one writer at a time", database.name()).isTrue();
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        Job job = worker.enqueue(JobRequest.of("work", new Work("x")));
        awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        JobStore store = new JobStore(worker.dataSource(), driver(worker));

        CompletableFuture<java.util.Optional<Job>> first;
        CompletableFuture<java.util.Optional<Job>> second;
        // Two threads of their own: the common pool may have only one on a small machine.
        try (Connection holding = worker.dataSource().getConnection();
                java.util.concurrent.ExecutorService retrying = java.util.concurrent.Executors.newFixedThreadPool(2)) {
            holding.setAutoCommit(false);
            Transactions.update(holding, "UPDATE skiplock_jobs SET metadata = metadata WHERE id = ?", job.id());
            first = CompletableFuture.supplyAsync(() -> store.retryJob(job.tenant(), job.id()), retrying);
            second = CompletableFuture.supplyAsync(() -> store.retryJob(job.tenant(), job.id()), retrying);
            await().atMost(WAIT).until(() -> first.isCompletedExceptionally() || second.isCompletedExceptionally()
                    || Jdbc.query(worker.dataSource(), "SELECT count(*) FROM pg_stat_activity"
                    + " WHERE wait_event_type = 'Lock' AND strpos(query, 'finished_seq') > 0",
                    row -> row.getLong(1)).getFirst() == 2);
            holding.commit();
        }

        assertThat(List.of(first.get(WAIT.toSeconds(), TimeUnit.SECONDS), second.get(WAIT.toSeconds(), TimeUnit.SECONDS)))
                .filteredOn(java.util.Optional::isPresent).hasSize(1);
        awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        await().atMost(WAIT).until(() -> worker.events(job.id(), 0, 100).size() == 6);
        assertThat(worker.events(job.id(), 0, 100)).extracting(event -> event.status() + "@" + event.attempt())
                .containsExactly("queued@0", "running@1", "succeeded@1", "queued@1", "running@2", "succeeded@2");
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

    /**
     * A dependency cancelled and then deleted while a caller's enqueue of its dependent is still
     * uncommitted: its trigger never saw the edge, and the row that would say how it ended is gone.
     * The settle fails the dependent naming the dependency deleted. Before, it found no dependency
     * that had not succeeded and queued the dependent, which then ran.
     */
    @Test
    void aDependencyCancelledAndDeletedBeforeItsDependentsEnqueueCommittedFailsTheDependent() throws Exception {
        assumeThat(database.concurrentWriters()).as("%s has one writer at a time", database.name()).isTrue();
        Skiplock client = client();
        Job parent = client.enqueue(JobRequest.of("work", new Work("parent")).withQueue("parking"));

        Job child;
        try (Connection caller = client.dataSource().getConnection()) {
            caller.setAutoCommit(false);
            child = client.enqueue(caller, JobRequest.of("work", new Work("child")).withQueue("parking")
                    .withDependsOn(List.of(parent.id())));
            assertThat(child.status()).isEqualTo(JobStatus.WAITING);
            // on this thread while it holds the enqueue: bounded, so a delete that waited for it fails
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(WAIT, () -> {
                client.cancel(parent.id());
                client.delete(parent.id());
            });
            caller.commit();
        }

        assertThat(new JobStore(client.dataSource(), driver(client)).settleWaitingJobs("reaper")).isEqualTo(1);
        Job settled = client.get(child.id()).orElseThrow();
        assertThat(settled.status()).isEqualTo(JobStatus.FAILED);
        assertThat(settled.lastError()).isEqualTo("dependency " + parent.id() + " deleted");
    }

    /**
     * The settle's rule for a dependency deleted before anything recorded how it ended, on both
     * databases (SQLite's one writer cannot interleave the enqueue and the delete): the state the
     * test above forces on PostgreSQL, made by moving the edge to a job deleted beforehand.
     */
    @Test
    void aWaitingJobWhoseDependencyWasDeletedUnrecordedFailsAtTheSettleNamingIt() {
        Skiplock client = client();
        Job succeeded = client.enqueue(JobRequest.of("work", new Work("succeeded")).withQueue("parking"));
        Job unfinished = client.enqueue(JobRequest.of("work", new Work("unfinished")).withQueue("parking"));
        Job child = client.enqueue(JobRequest.of("work", new Work("child")).withQueue("parking")
                .withDependsOn(List.of(succeeded.id(), unfinished.id())));
        Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs SET status = 'succeeded' WHERE id = ?",
                database.id(succeeded.id()));
        Job gone = dependencyDeletedUnrecorded(client, child, unfinished);

        assertThat(new JobStore(client.dataSource(), driver(client)).settleWaitingJobs("reaper")).isEqualTo(1);
        Job settled = client.get(child.id()).orElseThrow();
        assertThat(settled.status()).isEqualTo(JobStatus.FAILED);
        assertThat(settled.lastError()).isEqualTo("dependency " + gone.id() + " deleted");
    }

    /**
     * A dependent one of whose dependencies was deleted unrecorded is not released when its other
     * dependency succeeds: neither by the success of a worker's batch (SQLite's hot path,
     * release_dependents) nor by one committed in the handler's transaction (the dependency trigger;
     * on PostgreSQL both). It waits for the settle, which fails it. Before, the release read the
     * deleted one as no unfinished dependency and queued it. The worker's reaper does not run here.
     */
    @Test
    void aDependentWhoseDependencyWasDeletedUnrecordedIsNotReleasedByItsOtherDependencysSuccess() {
        Skiplock client = client();
        List<Job> dependents = new java.util.ArrayList<>();
        List<Job> gone = new java.util.ArrayList<>();
        List<Job> others = new java.util.ArrayList<>();
        for (String label : List.of("in a batch", "in its transaction")) {
            Job unfinished = client.enqueue(JobRequest.of("work", new Work("unfinished")).withQueue("parking"));
            Job other = client.enqueue(JobRequest.of("work", new Work(label)));
            Job dependent = client.enqueue(JobRequest.of("work", new Work("dependent")).withQueue("parking")
                    .withDependsOn(List.of(unfinished.id(), other.id())));
            dependents.add(dependent);
            gone.add(dependencyDeletedUnrecorded(client, dependent, unfinished));
            others.add(other);
        }

        Skiplock worker = started(builder(config -> config.queue("default", 1).reaperInterval(Duration.ofHours(1)))
                .handler("work", Work.class, context -> {
                    if (context.args().label().equals("in its transaction")) {
                        context.inTransaction(connection -> {
                            context.completeInTransaction(connection, null);
                            return null;
                        });
                    }
                    return JobOutcome.complete();
                }));
        others.forEach(other -> awaitStatus(worker, other.id(), JobStatus.SUCCEEDED));

        assertThat(dependents).extracting(dependent -> worker.get(dependent.id()).orElseThrow().status())
                .containsOnly(JobStatus.WAITING);
        assertThat(new JobStore(worker.dataSource(), driver(worker)).settleWaitingJobs("reaper")).isEqualTo(2);
        for (int i = 0; i < dependents.size(); i++) {
            Job settled = worker.get(dependents.get(i).id()).orElseThrow();
            assertThat(settled.status()).isEqualTo(JobStatus.FAILED);
            assertThat(settled.lastError()).isEqualTo("dependency " + gone.get(i).id() + " deleted");
        }
    }

    /**
     * A dependency deleted after it succeeded (rm, retention) while its dependent still waits on
     * another: the settle leaves the dependent waiting, and the other's success releases it. The
     * delete records the outcome on the dependency rows (migration 0030). Second reader of the
     * commit before: it failed such a dependent at the settle.
     */
    @Test
    void aDependencyDeletedAfterItSucceededStillCountsAsSucceeded() {
        Skiplock client = client();
        client.pauseQueue("held");
        List<Job> dependents = new java.util.ArrayList<>();
        List<Job> done = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Job first = client.enqueue(JobRequest.of("work", new Work("first")));
            Job later = client.enqueue(JobRequest.of("work", new Work("later")).withQueue("held"));
            dependents.add(client.enqueue(JobRequest.of("work", new Work("dependent"))
                    .withDependsOn(List.of(first.id(), later.id()))));
            done.add(first);
        }
        Skiplock worker = started(builder(config -> config.queue("default", 1).queue("held", 1)
                .reaperInterval(Duration.ofHours(1)))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        done.forEach(first -> awaitStatus(worker, first.id(), JobStatus.SUCCEEDED));
        JobStore store = new JobStore(worker.dataSource(), driver(worker));

        worker.delete(done.get(0).id());
        assertThat(store.pruneFinished(0, 1000)).isEqualTo(1); // the other one
        assertThat(store.settleWaitingJobs("reaper")).isZero();
        assertThat(dependents).extracting(dependent -> worker.get(dependent.id()).orElseThrow().status())
                .containsOnly(JobStatus.WAITING);

        worker.resumeQueue("held");
        assertThat(dependents).extracting(dependent -> awaitTerminal(worker, dependent.id()).status())
                .containsOnly(JobStatus.SUCCEEDED);
        // and a retry of the dependent is not refused for the deleted one
        assertThat(worker.retry(dependents.get(0).id()).status()).isEqualTo(JobStatus.QUEUED);
    }

    /**
     * As above, with the dependency deleted while the dependent's enqueue, which read it succeeded,
     * is still uncommitted: the delete cannot record its outcome on a row it does not see, so the
     * enqueue records what it read. Second reader: the dependent read it 'deleted' and failed.
     */
    @Test
    void aDependencyReadSucceededAndDeletedBeforeItsDependentsEnqueueCommittedStillCountsAsSucceeded() throws Exception {
        assumeThat(database.concurrentWriters()).as("%s has one writer at a time", database.name()).isTrue();
        Skiplock client = client();
        client.pauseQueue("held");
        Job first = client.enqueue(JobRequest.of("work", new Work("first")));
        Job later = client.enqueue(JobRequest.of("work", new Work("later")).withQueue("held"));
        Skiplock worker = started(builder(config -> config.queue("default", 1).queue("held", 1)
                .reaperInterval(Duration.ofHours(1)))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        awaitStatus(worker, first.id(), JobStatus.SUCCEEDED);

        Job dependent;
        try (Connection caller = client.dataSource().getConnection()) {
            caller.setAutoCommit(false);
            dependent = client.enqueue(caller, JobRequest.of("work", new Work("dependent"))
                    .withDependsOn(List.of(first.id(), later.id())));
            assertThat(dependent.status()).isEqualTo(JobStatus.WAITING);
            client.delete(first.id());
            caller.commit();
        }

        assertThat(new JobStore(client.dataSource(), driver(client)).settleWaitingJobs("reaper")).isZero();
        assertThat(client.get(dependent.id()).orElseThrow().status()).isEqualTo(JobStatus.WAITING);
        worker.resumeQueue("held");
        assertThat(awaitTerminal(worker, dependent.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
    }

    /**
     * A dependency whose row {@code dependent} names as {@code named} deleted before anything
     * recorded how it ended, as when it was cancelled and deleted while the dependent's enqueue was
     * uncommitted: the edge is moved to a job cancelled and deleted when no edge named it.
     */
    private Job dependencyDeletedUnrecorded(Skiplock client, Job dependent, Job named) {
        Job deleted = client.enqueue(JobRequest.of("work", new Work("deleted")).withQueue("parking"));
        client.cancel(deleted.id());
        client.delete(deleted.id());
        Jdbc.update(client.dataSource(), "UPDATE skiplock_job_dependencies SET depends_on = ? WHERE job_id = ? AND depends_on = ?",
                database.id(deleted.id()), database.id(dependent.id()), database.id(named.id()));
        return deleted;
    }

    // The backstop of fault 10 settles a stranded job however many jobs rightly wait before it.
    @Test
    void waitingJobWhoseDependencySucceededUnseenIsSettledBehindAThousandRightlyWaitingOnes() {
        Skiplock client = client();
        Job unfinished = client.enqueue(JobRequest.of("work", new Work("unfinished")).withQueue("parking"));
        List<JobRequest> waiting = java.util.stream.IntStream.range(0, 1001).mapToObj(i -> JobRequest.of("work",
                new Work("waits")).withQueue("parking").withDependsOn(List.of(unfinished.id()))).toList();
        client.enqueueMany(waiting);
        Job stranded = strandedWaitingJob(client, database, unfinished);

        started(builder(config -> config.queue("other", 1))); // its reaper runs settle_waiting_jobs

        Job settled = awaitStatus(client, stranded.id(), JobStatus.QUEUED);
        assertThat(settled.lastError()).isNull();
        assertThat(Jdbc.query(client.dataSource(), "SELECT count(*) FROM skiplock_jobs WHERE status = 'waiting'",
                row -> row.getLong(1))).containsExactly(1001L); // the rightly waiting ones still wait
    }

    /** The settle, too, keeps a runAt still to come of a job it queues. Before, it made the job due at once. */
    @Test
    void settleKeepsARunAtStillToComeOfAJobItQueues() {
        Skiplock client = client();
        java.time.Instant runAt = java.time.Instant.now().plus(java.time.Duration.ofHours(1))
                .truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        Job finished = client.enqueue(JobRequest.of("work", new Work("finished")).withQueue("parking"));
        Job unfinished = client.enqueue(JobRequest.of("work", new Work("unfinished")).withQueue("parking"));
        Job stranded = client.enqueue(JobRequest.of("work", new Work("stranded")).withQueue("parking").withRunAt(runAt)
                .withDependsOn(List.of(unfinished.id())));
        Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs SET status = 'succeeded' WHERE id = ?",
                database.id(finished.id()));
        Jdbc.update(client.dataSource(), "UPDATE skiplock_job_dependencies SET depends_on = ? WHERE job_id = ?",
                database.id(finished.id()), database.id(stranded.id()));

        assertThat(new JobStore(client.dataSource(), driver(client)).settleWaitingJobs("reaper")).isEqualTo(1);

        Job settled = client.get(stranded.id()).orElseThrow();
        assertThat(settled.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(settled.availableAt()).isEqualTo(runAt);
    }

    /**
     * The settle finds a stranded job by a read and settles it by a statement of its own, which
     * reads the job and its dependencies again: a job cancelled in between stays cancelled. The
     * cancel runs before the store prepares the second statement.
     */
    @Test
    void settleLeavesAJobCancelledAfterItsSearchFoundItAsItIs() {
        Skiplock client = client();
        Job unfinished = client.enqueue(JobRequest.of("work", new Work("unfinished")).withQueue("parking"));
        Job stranded = strandedWaitingJob(client, database, unfinished);
        AtomicBoolean cancelled = new AtomicBoolean();
        JobStore store = new JobStore(BeforeStatement.dataSource(client.dataSource(),
                statement(client, "settle_waiting_jobs"),
                () -> {
                    client.cancel(stranded.id());
                    cancelled.set(true);
                }), driver(client));

        assertThat(store.settleWaitingJobs("reaper")).isZero();

        assertThat(cancelled).as("the search found the job, and the cancel ran before its settle").isTrue();
        assertThat(client.get(stranded.id()).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
    }

    /**
     * As above, but the stranded job's dependency is retried between the search and the settle:
     * the job waits for it again instead of being queued on the dependency's earlier success.
     */
    @Test
    void settleLeavesWaitingAJobWhoseDependencyWasRetriedAfterItsSearchFoundIt() {
        Skiplock client = client();
        Job unfinished = client.enqueue(JobRequest.of("work", new Work("unfinished")).withQueue("parking"));
        Job stranded = strandedWaitingJob(client, database, unfinished);
        Job dependency = client.list(JobQuery.all().withQueue("parking").withStatus(JobStatus.SUCCEEDED)).jobs()
                .getFirst(); // the one strandedWaitingJob set to succeeded
        AtomicBoolean retried = new AtomicBoolean();
        JobStore store = new JobStore(BeforeStatement.dataSource(client.dataSource(),
                statement(client, "settle_waiting_jobs"),
                () -> {
                    assertThat(client.retry(dependency.id()).status()).isEqualTo(JobStatus.QUEUED);
                    retried.set(true);
                }), driver(client));

        assertThat(store.settleWaitingJobs("reaper")).isZero();

        assertThat(retried).as("the search found the job, and the retry ran before its settle").isTrue();
        assertThat(client.get(stranded.id()).orElseThrow().status()).isEqualTo(JobStatus.WAITING);
    }

    /**
     * Processes sharing a database take turns at the settle's search (which every worker's reaper
     * would run, mostly to find nothing): within its reaper interval of another's turn a process does not
     * search, and a job stranded meanwhile waits for the next turn; the process that took the turn
     * may take it again, and with no interval any process does. The turn is a row of the database,
     * so one store asking as two workers stands for two processes.
     */
    @Test
    void processesTakeTurnsAtTheSettlesSearchOnceAReaperInterval() {
        Skiplock client = client();
        Job unfinished = client.enqueue(JobRequest.of("work", new Work("unfinished")).withQueue("parking"));
        JobStore store = new JobStore(client.dataSource(), driver(client));
        Duration hour = Duration.ofHours(1);

        Job first = strandedWaitingJob(client, database, unfinished);
        assertThat(settledInTurn(store, hour, "one")).isEqualTo(1);
        Job second = strandedWaitingJob(client, database, unfinished);
        assertThat(store.takeMaintenanceTurn(hour, "other")).as("another's turn within the hour").isFalse();
        assertThat(client.get(second.id()).orElseThrow().status()).isEqualTo(JobStatus.WAITING);
        assertThat(settledInTurn(store, hour, "one")).as("its own turn again").isEqualTo(1);
        Job third = strandedWaitingJob(client, database, unfinished);
        assertThat(settledInTurn(store, Duration.ZERO, "other")).isEqualTo(1);

        for (Job stranded : List.of(first, second, third)) {
            assertThat(client.get(stranded.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
        }
    }

    /** What a reaper settles in a run that asks for the turn: nothing unless it takes it. */
    private static int settledInTurn(JobStore store, Duration interval, String worker) {
        return store.takeMaintenanceTurn(interval, worker) ? store.settleWaitingJobs(worker) : 0;
    }

    /**
     * A turn dated ahead of the database's clock (the clock was set back since) by more than an
     * interval is stale: another process takes it. One dated ahead by less (a turn another process
     * took while this one's statement, started a little earlier, waited for it) is not.
     */
    @Test
    void aTurnDatedMoreThanAnIntervalAheadIsStale() {
        Skiplock client = client();
        JobStore store = new JobStore(client.dataSource(), driver(client));
        String now = database.name().equals("postgres") ? "now()" : "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
        String minute = database.name().equals("postgres") ? "interval '1 minute'" : "60000";
        Jdbc.update(client.dataSource(), "INSERT INTO skiplock_maintenance_turns (task, taken_at, taken_by)"
                + " VALUES ('settle_waiting_jobs', " + now + " + 30 * " + minute + ", 'one')");

        assertThat(store.takeMaintenanceTurn(Duration.ofHours(1), "other"))
                .as("half an hour ahead, interval an hour").isFalse();
        assertThat(store.takeMaintenanceTurn(Duration.ofMinutes(10), "other"))
                .as("half an hour ahead, interval ten minutes")
                .isTrue();
    }

    /** A turn whose search failed is given back: another process takes it within its interval. */
    @Test
    void aTurnWhoseSearchFailedIsGivenBack() {
        Skiplock client = client();
        Job unfinished = client.enqueue(JobRequest.of("work", new Work("unfinished")).withQueue("parking"));
        Job stranded = strandedWaitingJob(client, database, unfinished);
        JobStore failing = new JobStore(BeforeStatement.dataSource(client.dataSource(),
                statement(client, "find_settleable_jobs"), () -> {
                    throw new IllegalStateException("the search failed");
                }), driver(client));
        Duration hour = Duration.ofHours(1);

        assertThat(failing.takeMaintenanceTurn(hour, "one")).isTrue();
        assertThatThrownBy(() -> failing.settleWaitingJobs("one")).isInstanceOf(RuntimeException.class);
        assertThat(client.get(stranded.id()).orElseThrow().status()).isEqualTo(JobStatus.WAITING);

        assertThat(settledInTurn(new JobStore(client.dataSource(), driver(client)), hour, "other")).isEqualTo(1);
        assertThat(client.get(stranded.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
    }

    /**
     * A worker whose turn cannot be taken (every take of it fails here, as for a role without
     * rights on the turns table) still searches: its reaper settles a stranded job.
     */
    @Test
    void aReaperThatCannotTakeTheTurnSearchesAnyway() {
        Skiplock client = client();
        Job unfinished = client.enqueue(JobRequest.of("work", new Work("unfinished")).withQueue("parking"));
        Job stranded = strandedWaitingJob(client, database, unfinished);

        started(Skiplock.builder().dataSource(BeforeStatement.failing(client.dataSource(),
                statement(client, "take_maintenance_turn"))).config(fastConfig().queue("other", 1).build()));

        assertThat(awaitStatus(client, stranded.id(), JobStatus.QUEUED).lastError()).isNull();
        assertThat(Jdbc.query(client.dataSource(), "SELECT count(*) FROM skiplock_maintenance_turns",
                row -> row.getLong(1))).as("no turn was ever taken").containsExactly(0L);
    }

    /**
     * One search finds at most 1,000 jobs; a settle searches again from the last one found while a
     * search finds that many, so 1,500 jobs stranded by one enqueue are all settled at once.
     */
    @Test
    void aSettleSettlesMoreJobsThanOneSearchFinds() {
        Skiplock client = client();
        strandedWaitingJobs(client, database, 1_500);

        assertThat(new JobStore(client.dataSource(), driver(client)).settleWaitingJobs("reaper")).isEqualTo(1_500);
        assertThat(Jdbc.query(client.dataSource(), "SELECT count(*) FROM skiplock_jobs WHERE status = 'waiting'",
                row -> row.getLong(1))).containsExactly(0L);
    }

    /**
     * A settle's later searches go on from the last job the one before found: with the first 1,000
     * of 1,500 stranded jobs held by another transaction (skipped, never settled by this run), the
     * settle still reaches the other 500 (searching from the start again would find the same 1,000
     * at each search); the held ones are settled by the next.
     */
    @Test
    void aSettleGoesOnPastJobsAnotherTransactionHolds() throws Exception {
        assumeThat(database.concurrentWriters()).as("%s has one writer at a time", database.name()).isTrue();
        Skiplock client = client();
        strandedWaitingJobs(client, database, 1_500);
        JobStore store = new JobStore(client.dataSource(), driver(client));

        try (Connection holding = client.dataSource().getConnection()) {
            holding.setAutoCommit(false);
            assertThat(Jdbc.number(holding, "SELECT count(*) FROM (SELECT id FROM skiplock_jobs"
                    + " WHERE status = 'waiting' ORDER BY id LIMIT 1000 FOR UPDATE) AS held")).isEqualTo(1_000);
            // bounded: a settle that waited for the held jobs would otherwise wait for this thread
            assertThat(org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(WAIT,
                    () -> store.settleWaitingJobs("reaper"))).isEqualTo(500);
            holding.commit();
        }
        assertThat(store.settleWaitingJobs("reaper")).isEqualTo(1_000);
    }

    /**
     * Two processes asking for the settle's turn at once: the second waits for the first's
     * uncommitted turn, then finds it taken; both when the first takes the first turn ever (an
     * insert) and when it takes it again after an hour (an update).
     */
    @Test
    void aTurnTakenWhileAnotherProcessAsksForItIsTakenOnce() throws Exception {
        assumeThat(database.concurrentWriters()).as("%s has one writer at a time", database.name()).isTrue();
        Skiplock client = client();

        secondAskerFindsTheTurnTaken(client, "INSERT INTO skiplock_maintenance_turns (task, taken_at, taken_by)"
                + " VALUES ('settle_waiting_jobs', now(), 'first')");
        Jdbc.update(client.dataSource(), "UPDATE skiplock_maintenance_turns SET taken_at = now() - interval '2 hours'");
        secondAskerFindsTheTurnTaken(client,
                "UPDATE skiplock_maintenance_turns SET taken_at = now(), taken_by = 'first'");
    }

    /** Runs {@code firstTurn} in a transaction; a store asks for the turn as another worker meanwhile and gets none. */
    private void secondAskerFindsTheTurnTaken(Skiplock client, String firstTurn) throws Exception {
        JobStore store = new JobStore(client.dataSource(), driver(client));
        try (Connection first = client.dataSource().getConnection()) {
            first.setAutoCommit(false);
            Transactions.update(first, firstTurn);
            CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(
                    () -> store.takeMaintenanceTurn(Duration.ofHours(1), "second"));
            Transactions.awaitBlocked(client.dataSource(), "skiplock_maintenance_turns", second);
            first.commit();
            assertThat(second.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isFalse();
        }
    }

    /** The statement {@code name} of the driver's jobs.sql, as the store prepares it. */
    private static String statement(Skiplock client, String name) {
        return SqlFile.load(driver(client).resourceRoot() + "/sql/jobs.sql").get(name).jdbcSql();
    }

    /** {@code count} jobs stranded as {@link #strandedWaitingJob} is, by one enqueue and one dependency. */
    static void strandedWaitingJobs(Skiplock client, TestDatabase database, int count) {
        Job unfinished = client.enqueue(JobRequest.of("work", new Work("unfinished")).withQueue("parking"));
        Job finished = client.enqueue(JobRequest.of("work", new Work("finished")).withQueue("parking"));
        client.enqueueMany(IntStream.range(0, count).mapToObj(i -> JobRequest.of("work",
                new Work("stranded")).withQueue("parking").withDependsOn(List.of(unfinished.id()))).toList());
        Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs SET status = 'succeeded' WHERE id = ?",
                database.id(finished.id()));
        Jdbc.update(client.dataSource(), "UPDATE skiplock_job_dependencies SET depends_on = ? WHERE depends_on = ?",
                database.id(finished.id()), database.id(unfinished.id()));
    }

    /**
     * A job of queue "parking" waiting on one that succeeded while its enqueue was uncommitted:
     * the dependency's trigger never saw the edge, so only settle_waiting_jobs releases it. It
     * waits on {@code unfinished} first; the edge is then moved to a job set to succeeded.
     */
    static Job strandedWaitingJob(Skiplock client, TestDatabase database, Job unfinished) {
        Job finished = client.enqueue(JobRequest.of("work", new Work("finished")).withQueue("parking"));
        Job stranded = client.enqueue(JobRequest.of("work", new Work("stranded")).withQueue("parking")
                .withDependsOn(List.of(unfinished.id())));
        Jdbc.update(client.dataSource(), "UPDATE skiplock_jobs SET status = 'succeeded' WHERE id = ?",
                database.id(finished.id()));
        Jdbc.update(client.dataSource(), "UPDATE skiplock_job_dependencies SET depends_on = ? WHERE job_id = ?",
                database.id(finished.id()), database.id(stranded.id()));
        return stranded;
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

    /** As above, once the failed dependency is deleted: its outcome is kept (migration 0030). Before, the retry ran the job. */
    @Test
    void retryOfAJobWhoseFailedDependencyWasDeletedIsStillRefusedNamingIt() {
        Skiplock client = client();
        Job parent = client.enqueue(JobRequest.of("work", new Work("parent")));
        Job child = client.enqueue(JobRequest.of("work", new Work("child")).withDependsOn(List.of(parent.id())));
        client.cancel(parent.id());
        client.delete(parent.id());

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

    static Driver driver(Skiplock skiplock) {
        return ServiceLoader.load(Driver.class).stream().map(ServiceLoader.Provider::get)
                .filter(candidate -> candidate.name().equals(skiplock.driverName())).findFirst().orElseThrow();
    }
}
