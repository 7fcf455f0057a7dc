package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Uuid7;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.HeldAttempt;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.internal.store.PrunedJobs;
import dev.skiplock.spi.Driver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** DESIGN §4: wake-ups, batched claims and completions, retention. */
abstract class FastPathContract extends ContractBase {

    record Work(String label) {
    }

    /** A store on {@code skiplock}'s pool, with the driver it runs on. */
    static JobStore store(Skiplock skiplock) {
        return new JobStore(skiplock.dataSource(), driver(skiplock));
    }

    /** The driver {@code skiplock} runs on. */
    static Driver driver(Skiplock skiplock) {
        return ServiceLoader.load(Driver.class).stream().map(ServiceLoader.Provider::get)
                .filter(candidate -> candidate.name().equals(skiplock.driverName())).findFirst().orElseThrow();
    }

    private static ClaimParams claim(String worker) {
        return new ClaimParams("default", worker, "host-1", UUID.randomUUID(), 60_000, "[]");
    }

    /** A job as the client builds one from a request: queued, attempt 0, no unique key unless given. */
    static Job requested(String queue, String uniqueKey) {
        return Job.builder().id(Uuid7.next()).tenant(Skiplock.DEFAULT_TENANT).queue(queue).kind("work")
                .args(dev.skiplock.internal.Json.MAPPER.createObjectNode()).metadata(dev.skiplock.internal.Json.MAPPER.createObjectNode())
                .status(JobStatus.QUEUED).maxAttempts(3).uniqueKey(uniqueKey).dependsOn(List.of()).build();
    }

    /** Listens on {@code statement}'s connection to the notifications of its schema's Skiplock (PostgreSQL). */
    static void listen(java.sql.Statement statement) throws java.sql.SQLException {
        String schema;
        try (java.sql.ResultSet row = statement.executeQuery("SELECT current_schema()")) {
            row.next();
            schema = row.getString(1);
        }
        statement.execute("LISTEN \"skiplock:" + schema + "\"");
    }

    /** Rows of the job, event and counts tables, and the counts: what a rehearsal must leave as it was. */
    private List<Object> tables(Skiplock skiplock) {
        List<Object> tables = new java.util.ArrayList<>(List.of(
                Jdbc.query(skiplock.dataSource(), "SELECT count(*) FROM skiplock_jobs", row -> row.getLong(1)),
                Jdbc.query(skiplock.dataSource(), "SELECT count(*) FROM skiplock_job_events", row -> row.getLong(1)),
                Jdbc.query(skiplock.dataSource(), "SELECT count(*) FROM skiplock_job_throughput", row -> row.getLong(1)),
                MetricsContract.counted(skiplock)));
        for (String table : database.countTables()) {
            tables.add(Jdbc.query(skiplock.dataSource(), "SELECT count(*), coalesce(sum(jobs), 0) FROM " + table,
                    row -> row.getLong(1) + "/" + row.getLong(2)));
        }
        return tables;
    }

    /**
     * The warm-up a worker runs before it reports started (issue #12: a cold worker's first jobs
     * waited ~60 ms) takes its jobs through insert (the first alone, the rest as a batch), one claim
     * and one completion batch, and leaves nothing behind; an application's job in the same queue
     * is neither returned nor touched.
     */
    @Test
    void rehearsalTakesItsJobsThroughClaimAndCompletionAndLeavesNothing() {
        Skiplock client = client();
        client.enqueue(JobRequest.of("work", new Work("kept")));
        UUID applications = client.enqueue(JobRequest.of("work", new Work("in the rehearsal's queue"))
                .withQueue("skiplock.warmup")).id();
        JobStore store = store(client);
        List<Object> before = tables(client);

        // First in claim order, as the warm-up's jobs
        List<Job> rehearsed = java.util.stream.Stream.generate(() -> requested("skiplock.warmup", null).toBuilder()
                .priority(Integer.MAX_VALUE).build()).limit(3).toList();
        List<Claimed> claimed = store.rehearse(rehearsed, new ClaimParams("skiplock.warmup", "worker-1", "host-1",
                UUID.randomUUID(), 60_000, "[]"));

        assertThat(claimed).extracting(job -> job.job().id()).containsExactlyInAnyOrderElementsOf(
                rehearsed.stream().map(Job::id).toList());
        assertThat(claimed).allSatisfy(job -> assertThat(job.job().status()).isEqualTo(JobStatus.RUNNING));
        assertThat(tables(client)).isEqualTo(before);
        assertThat(rehearsed).allSatisfy(job -> assertThat(client.get(job.id())).isEmpty());
        assertThat(client.get(applications)).hasValueSatisfying(job -> {
            assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
            assertThat(job.attempt()).isZero();
        });
    }

    /**
     * The enqueue warm-up an instance's build runs (issue #12: a fresh JVM's first enqueueMany took
     * 420-450 ms) takes a lone job and a batch large enough for COPY through insert, and leaves
     * nothing behind.
     */
    @Test
    void enqueueRehearsalInsertsALoneJobAndABatchAndLeavesNothing() {
        Skiplock client = client();
        client.enqueue(JobRequest.of("work", new Work("kept")));
        JobStore store = store(client);
        List<Object> before = tables(client);
        Job lone = requested("rehearsed", null);
        List<Job> batch = java.util.stream.Stream.generate(() -> requested("rehearsed", null)).limit(150).toList();

        List<Job> inserted = store.rehearseEnqueue(lone, batch);

        assertThat(inserted).extracting(Job::id).containsExactlyElementsOf(
                java.util.stream.Stream.concat(java.util.stream.Stream.of(lone), batch.stream()).map(Job::id).toList());
        assertThat(inserted).allSatisfy(job -> {
            assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
            assertThat(job.requestedAt()).as("the database's time of the insert").isNotNull();
        });
        assertThat(tables(client)).isEqualTo(before);
        assertThat(inserted).allSatisfy(job -> assertThat(client.get(job.id())).isEmpty());
    }

    /**
     * build() rehearses the enqueue path once per JVM and driver, and not at all when switched off
     * (Builder.enqueueWarmUp(false), as the CLI's one-command clients build): counted where the
     * rehearsal binds its queue to a statement (its lone job's insert), and on PostgreSQL at the
     * driver's COPY, which its batch goes through. Each driver here is the test database's under
     * a name of its own, which this JVM has not rehearsed.
     */
    @Test
    void buildRehearsesTheEnqueuePathOncePerDriverAndNotWhenSwitchedOff() {
        Skiplock client = client();
        Driver driver = driver(client);
        AtomicInteger bound = new AtomicInteger();
        AtomicInteger copies = new AtomicInteger();
        javax.sql.DataSource counting = warmUpCounting(client.dataSource(), bound);
        String first = driver.name() + "-" + UUID.randomUUID();
        String second = driver.name() + "-" + UUID.randomUUID();

        track(Skiplock.builder().dataSource(counting).driver(renamed(driver, first, copies)).build());
        int rehearsed = bound.get();
        assertThat(rehearsed).as("the first build's rehearsal").isPositive();
        assertThat(copies.get()).as("its batch through COPY").isEqualTo(driver.bulkCopy().isPresent() ? 1 : 0);

        track(Skiplock.builder().dataSource(counting).driver(renamed(driver, first, copies)).build());
        Skiplock.builder().dataSource(counting).driver(renamed(driver, second, copies)).enqueueWarmUp(false)
                .buildClient().close();
        assertThat(bound.get()).as("a later build of that driver, and one switched off").isEqualTo(rehearsed);

        Skiplock.builder().dataSource(counting).driver(renamed(driver, second, copies)).buildClient().close();
        assertThat(bound.get()).as("the switched-off build left that driver unrehearsed").isEqualTo(2 * rehearsed);
    }

    /**
     * A rehearsal the database refuses (here its rows, as a role that may not insert would) fails
     * no build, and a later build of that driver does not try again: it would fail the same way,
     * with a warning at every build.
     */
    @Test
    void aRefusedEnqueueRehearsalFailsNoBuildAndIsNotTriedAgain() {
        Skiplock client = client();
        Driver driver = driver(client);
        AtomicInteger bound = new AtomicInteger();
        javax.sql.DataSource refusing = warmUpCounting(LostAnswers.rejecting(client.dataSource(), "skiplock.warmup"), bound);
        String name = driver.name() + "-" + UUID.randomUUID();

        Skiplock first = track(Skiplock.builder().dataSource(refusing).driver(renamed(driver, name, new AtomicInteger()))
                .build());
        int tried = bound.get();
        assertThat(tried).as("the first build tried").isPositive();
        assertThat(first.enqueue(JobRequest.of("work", new Work("after a refused rehearsal"))).status())
                .isEqualTo(JobStatus.QUEUED);

        Skiplock.builder().dataSource(refusing).driver(renamed(driver, name, new AtomicInteger())).buildClient().close();
        assertThat(bound.get()).as("a later build of that driver").isEqualTo(tried);
    }

    /** {@code driver} under {@code name}, counting the copies its bulk writer makes. */
    private static Driver renamed(Driver driver, String name, AtomicInteger copies) {
        return LostAnswers.proxy(Driver.class, driver, (method, args, result) -> switch (method.getName()) {
            case "name" -> name;
            case "bulkCopy" -> ((java.util.Optional<?>) result).map(bulk -> LostAnswers.proxy(
                    dev.skiplock.spi.BulkCopy.class, (dev.skiplock.spi.BulkCopy) bulk, (copyMethod, copyArgs, copied) -> {
                        if (copyMethod.getName().equals("copy")) {
                            copies.incrementAndGet();
                        }
                        return copied;
                    }));
            default -> result;
        });
    }

    /** {@code target}, counting the statements that get the rehearsal's queue bound as a parameter. */
    private static javax.sql.DataSource warmUpCounting(javax.sql.DataSource target, AtomicInteger bound) {
        return LostAnswers.proxy(javax.sql.DataSource.class, target, (method, args, connection) ->
                !method.getName().equals("getConnection") ? connection
                        : LostAnswers.proxy(java.sql.Connection.class, (java.sql.Connection) connection,
                                (call, callArgs, statement) -> !call.getName().equals("prepareStatement") ? statement
                                        : LostAnswers.proxy(java.sql.PreparedStatement.class,
                                                (java.sql.PreparedStatement) statement, (set, setArgs, answer) -> {
                                                    if (set.getName().equals("setString")
                                                            && "skiplock.warmup".equals(setArgs[1])) {
                                                        bound.incrementAndGet();
                                                    }
                                                    return answer;
                                                })));
    }

    /**
     * The warm-up rehearses on each connection its pool holds idle, not only on the one it borrows
     * first (issue #12: the claimer's first claim on a backend that had not run it took 15.6 ms in
     * PostgreSQL): all borrowed at once, so each is a different one; a connection in use elsewhere
     * is left to its holder; each takes its own jobs through claims and completion and leaves
     * nothing, and an application's job in the rehearsal's queue is untouched.
     */
    @Test
    void rehearsalRunsOnEachIdleConnectionAndLeavesNothing() throws Exception {
        // A queue, so the pool opens all its connections at once, as a worker's (not started: no claimer)
        Skiplock instance = track(Skiplock.builder().url(database.url()).maxPoolSize(4)
                .config(fastConfig().queue("work", 1).build()).build());
        com.zaxxer.hikari.HikariPoolMXBean pool = ((com.zaxxer.hikari.HikariDataSource) instance.dataSource())
                .getHikariPoolMXBean();
        await().atMost(Duration.ofSeconds(30)).until(() -> pool.getIdleConnections() == 4);
        UUID applications = instance.enqueue(JobRequest.of("work", new Work("in the rehearsal's queue"))
                .withQueue("skiplock.warmup")).id();
        JobStore store = store(instance);
        List<Object> before = tables(instance);
        // Filled from the rehearsals' threads (in parallel where the database writes side by side)
        List<Set<UUID>> handedOut = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        List<Integer> inUseDuringEach = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

        List<List<Claimed>> claimed;
        try (java.sql.Connection held = instance.dataSource().getConnection()) {
            claimed = store.rehearseOnEachConnection(() -> {
                List<Job> jobs = java.util.stream.Stream.generate(() -> requested("skiplock.warmup", null).toBuilder()
                        .priority(Integer.MAX_VALUE).build()).limit(3).toList();
                handedOut.add(jobs.stream().map(Job::id).collect(java.util.stream.Collectors.toSet()));
                inUseDuringEach.add(pool.getActiveConnections());
                return jobs;
            }, new ClaimParams("skiplock.warmup", "worker-1", "host-1", UUID.randomUUID(), 60_000, "[]"));
        }

        assertThat(claimed).hasSize(3); // four connections, one held by this test
        assertThat(inUseDuringEach).containsOnly(4); // the three borrowed at once: three different ones
        assertThat(claimed.stream().map(jobs -> jobs.stream().map(job -> job.job().id())
                .collect(java.util.stream.Collectors.toSet())).toList()).containsExactlyInAnyOrderElementsOf(handedOut);
        assertThat(tables(instance)).isEqualTo(before);
        assertThat(instance.get(applications)).hasValueSatisfying(job -> {
            assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
            assertThat(job.attempt()).isZero();
        });
    }

    /**
     * A lone enqueue in Skiplock's own transaction notifies in its statement where statements
     * can (PostgreSQL), so its commit wakes the workers without a second statement; elsewhere the
     * caller announces it.
     */
    @Test
    void aLoneEnqueueIsAnnouncedByItsCommitWhereStatementsNotify() {
        Skiplock client = client();
        JobStore store = store(client);

        dev.skiplock.internal.store.Inserted inserted = store.insertJobs(List.of(requested("default", null)));

        assertThat(inserted.announced()).isEqualTo(database.notifiesAcrossProcesses());
        assertThat(inserted.jobs()).singleElement().extracting(Job::status).isEqualTo(JobStatus.QUEUED);
    }

    @Test
    void batchedCompletionRejectsOnlyTheJobWhoseLeaseMovedElsewhere() {
        Skiplock client = client();
        JobStore store = store(client);
        client.enqueueMany(List.of(JobRequest.of("a", null), JobRequest.of("b", null)));
        List<Claimed> claimed = store.claimJobs(claim("worker-1"), 10);
        assertThat(claimed).hasSize(2);
        Claimed kept = claimed.get(0);
        Claimed moved = claimed.get(1);
        database.stealLease(client.dataSource(), moved.job().id(), "worker-2");

        Set<HeldAttempt> applied = store.completeJobs(List.of(
                new Completion(kept.lease(), JobStatus.SUCCEEDED, 0, null, null, 0),
                new Completion(moved.lease(), JobStatus.SUCCEEDED, 0, null, null, 0)));

        assertThat(applied).containsExactly(kept.lease()); // the same token as the moved job's: one claim
        assertThat(client.get(kept.job().id()).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
        Job stillRunning = client.get(moved.job().id()).orElseThrow();
        assertThat(stillRunning.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(stillRunning.lockedBy()).isEqualTo("worker-2");
    }

    @Test
    void claimTakesAtMostTheRequestedNumberInOneStatement() {
        Skiplock client = client();
        JobStore store = store(client);
        for (int i = 0; i < 3; i++) {
            client.enqueueMany(List.of(JobRequest.of("a", null), JobRequest.of("a", null), JobRequest.of("a", null)));
        }
        assertThat(store.claimJobs(claim("w"), 4)).hasSize(4);
        assertThat(store.claimJobs(claim("w"), 4)).hasSize(4);
        assertThat(store.claimJobs(claim("w"), 4)).hasSize(1);
        assertThat(store.claimJobs(claim("w"), 4)).isEmpty();
    }

    @Test
    void burstOfEnqueuesNeverClaimsMoreThanFreeSlots() throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        Skiplock worker = started(builder(config -> config.queue("default", 2))
                .handler("work", Work.class, context -> {
                    maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                    release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                    running.decrementAndGet();
                    return JobOutcome.complete();
                }));
        Skiplock producer = client();
        for (int i = 0; i < 40; i++) {
            producer.enqueue(JobRequest.of("work", new Work("" + i)));
        }
        await().atMost(WAIT).until(() -> running.get() == 2);
        assertThat(worker.metrics().claimed()).isEqualTo(2);

        release.countDown();
        await().atMost(WAIT).until(() -> worker.metrics().succeeded() == 40);
        assertThat(maxRunning).hasValue(2);
    }

    @Test
    void jobWhoseNotificationWasLostStillRunsByPolling() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        UUID id = Uuid7.next();

        database.insertWithoutNotification(worker.dataSource(), id, "work");

        assertThat(awaitStatus(worker, id, JobStatus.SUCCEEDED).attempt()).isEqualTo(1);
    }

    @Test
    void enqueueThroughAnotherInstanceWakesTheWorkerWithoutPolling() {
        // PostgreSQL: NOTIFY on commit. SQLite: the in-JVM signal between instances on one file.
        Skiplock worker = started(builder(config -> config.queue("default", 1).pollInterval(Duration.ofMinutes(10)))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        Skiplock producer = client();
        // Once the warm-up job is done the claimer has gone idle for ten minutes: only a
        // notification can wake it for the next job in time.
        awaitStatus(producer, producer.enqueue(JobRequest.of("work", new Work("warm-up"))).id(), JobStatus.SUCCEEDED);
        Job job = producer.enqueue(JobRequest.of("work", new Work("x")));

        awaitStatus(producer, job.id(), JobStatus.SUCCEEDED);
        awaitCount(() -> worker.metrics().succeeded(), 2);
    }

    /**
     * A dependent released by its dependency's success wakes its queue's idle claimer: PostgreSQL's
     * dependency trigger notifies the queue; SQLite's hot path tells the worker after its commit.
     * The dependency's handler returns once the claimer has gone idle (at its doorbell), so nothing
     * else wakes it. Before, SQLite's released dependent waited for the next poll, here ten minutes
     * (notifier reviewer).
     */
    @Test
    void aDependentReleasedByItsDependencysSuccessWakesItsQueue() {
        Skiplock worker = started(builder(config -> config.queue("default", 4).pollInterval(Duration.ofMinutes(10)))
                .handler("work", Work.class, context -> {
                    await().atMost(WAIT).until(FastPathContract::claimerIdle);
                    return JobOutcome.complete();
                }));
        worker.pauseQueue("default"); // so that the dependent waits for its dependency
        Job first = worker.enqueue(JobRequest.of("work", new Work("first")));
        Job then = worker.enqueue(JobRequest.of("work", new Work("then")).withDependsOn(List.of(first.id())));
        assertThat(then.status()).isEqualTo(JobStatus.WAITING);
        worker.resumeQueue("default");

        awaitStatus(worker, first.id(), JobStatus.SUCCEEDED);
        awaitStatus(worker, then.id(), JobStatus.SUCCEEDED);
    }

    /** Whether queue default's claimer waits at its doorbell (nothing to claim, no wake-up pending). */
    private static boolean claimerIdle() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(entry -> entry.getKey().getName().equals("skiplock-claim-default"))
                .anyMatch(entry -> java.util.Arrays.stream(entry.getValue())
                        .anyMatch(frame -> frame.getClassName().endsWith("Doorbell") && frame.getMethodName().equals("await")));
    }

    @Test
    void everyFinishedJobIsAnnouncedWhileAnotherProcessFollowsEvents() throws Exception {
        assumeThat(database.notifiesAcrossProcesses())
                .as("%s announces finished jobs inside the JVM only", database.name()).isTrue();
        Skiplock worker = started(builder(config -> config.queue("default", 16))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        // A started instance that follows one job's events: completions announce their jobs from
        // then on (and for a while after its last follower; without one they announce none).
        // (awaitEvents follows before it reads, even when it finds events at once.)
        Skiplock follower = started(builder(config -> { }));
        Job first = worker.enqueue(JobRequest.of("work", new Work("followed")));
        assertThat(follower.awaitEvents(first.id(), 0, 100, WAIT)).isNotEmpty();
        try (java.sql.Connection listener = java.sql.DriverManager.getConnection(database.url());
                java.sql.Statement statement = listener.createStatement()) {
            listen(statement);
            List<JobRequest> requests = java.util.stream.IntStream.range(0, 300)
                    .mapToObj(i -> JobRequest.of("work", new Work("x" + i))).toList();
            Set<String> ids = new java.util.HashSet<>();
            worker.enqueueMany(requests).forEach(job -> ids.add(job.id().toString()));

            // Completion batches announce many ids per notification ("e:<id>,<id>,…").
            Set<String> announced = new java.util.HashSet<>();
            org.postgresql.PGConnection postgres = listener.unwrap(org.postgresql.PGConnection.class);
            await().atMost(WAIT).until(() -> {
                for (org.postgresql.PGNotification notification : postgres.getNotifications(100)) {
                    String payload = notification.getParameter();
                    if (payload.startsWith("e:")) {
                        announced.addAll(List.of(payload.substring(2).split(",")));
                    }
                }
                return announced.containsAll(ids);
            });
        }
    }

    @Test
    void listenerThatLostItsConnectionReconnectsAndWakesTheWorkerAgain() {
        assumeThat(database.notifiesAcrossProcesses())
                .as("%s has no listener connection to lose", database.name()).isTrue();
        Skiplock worker = started(builder(config -> config.queue("default", 1).pollInterval(Duration.ofMinutes(10)))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        Skiplock producer = client();
        await().atMost(WAIT).until(() -> database.listenerCount(producer.dataSource()) == 1);

        assertThat(database.terminateListeners(producer.dataSource())).isEqualTo(1);

        await().atMost(WAIT).until(() -> database.listenerCount(producer.dataSource()) == 1);
        Job job = producer.enqueue(JobRequest.of("work", new Work("after reconnect")));
        awaitStatus(producer, job.id(), JobStatus.SUCCEEDED);
        awaitCount(() -> worker.metrics().succeeded(), 1);
    }

    @Test
    void cancelThroughAnotherInstanceReachesTheRunningJobWithoutWaitingForAHeartbeat() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Skiplock worker = started(builder(config -> config.queue("default", 1)
                .leaseTtl(Duration.ofMinutes(10)).heartbeatInterval(Duration.ofMinutes(5)))
                .handler("work", Work.class, context -> {
                    started.countDown();
                    ContractBase.blockUntilInterrupted(); // long work; the cancel must end it
                    return JobOutcome.complete();
                }));
        Skiplock other = client();
        Job job = other.enqueue(JobRequest.of("work", new Work("x")));
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        other.cancel(job.id());

        awaitStatus(other, job.id(), JobStatus.CANCELLED);
        awaitCount(() -> worker.metrics().cancelled(), 1);
    }

    @Test
    void retentionDeletesOnlyFinishedJobsInBoundedBatches() {
        Skiplock worker = started(builder(config -> config.queue("done", 4))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        JobStore store = store(worker);
        List<Job> done = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            done.add(worker.enqueue(JobRequest.of("work", new Work("" + i)).withQueue("done")));
        }
        Job waiting = worker.enqueue(JobRequest.of("work", new Work("later")));
        await().atMost(WAIT).until(() -> worker.metrics().succeeded() == 5);

        assertThat(store.pruneFinished(3_600_000, 100)).isZero();
        PrunedJobs first = store.pruneFinished(0, 2, null);
        assertThat(first).isEqualTo(new PrunedJobs(2, done.get(1).id()));
        assertThat(store.pruneFinished(0, 100, done.get(2).id())).as("a batch goes on past its after")
                .isEqualTo(new PrunedJobs(2, done.get(4).id()));
        assertThat(worker.get(done.get(2).id())).as("the job at after, left to the next run").isPresent();
        assertThat(store.pruneFinished(0, 100)).isEqualTo(1);
        assertThat(store.pruneFinished(0, 100, null)).isEqualTo(new PrunedJobs(0, null));
        assertThat(worker.get(waiting.id())).isPresent();
    }

    /**
     * Retention walks the history only as far as the jobs enqueued before its cutoff, and a minute
     * more for the clocks of other hosts (JobStore.ENQUEUE_CLOCK_MARGIN): of two jobs finished now,
     * whose ids a host's clock made 30 s and 5 min ahead of this one's, the first is deleted, the
     * second kept until the cutoff passes its id. Without the bound both were deleted, and a prune
     * that found fewer jobs than its batch read the whole history.
     */
    @Test
    void retentionWalksTheHistoryOnlyAsFarAsTheJobsEnqueuedBeforeItsCutoff() throws Exception {
        Skiplock client = client();
        long now = System.currentTimeMillis();
        UUID thirtySecondsAhead = idMadeAt(now + 30_000);
        UUID fiveMinutesAhead = idMadeAt(now + 300_000);
        for (UUID id : List.of(thirtySecondsAhead, fiveMinutesAhead)) {
            Job job = client.enqueue(JobRequest.of("work", new Work("ahead")).withQueue("parking"));
            client.cancel(job.id());
            renumber(client, job.id(), id);
        }

        assertThat(store(client).pruneFinished(0, 100)).isEqualTo(1);
        assertThat(client.get(thirtySecondsAhead)).isEmpty();
        assertThat(client.get(fiveMinutesAhead)).isPresent();
    }

    /** A UUIDv7 as a host whose clock read {@code epochMillis} makes it. */
    private static UUID idMadeAt(long epochMillis) {
        return new UUID((epochMillis << 16) | 0x7000L, 0x8000000000000000L | (UUID.randomUUID().getLeastSignificantBits() >>> 2));
    }

    /** Gives a job another id, bound as the driver binds ids. */
    private static void renumber(Skiplock client, UUID from, UUID to) throws Exception {
        Driver driver = driver(client);
        try (java.sql.Connection connection = client.dataSource().getConnection();
                java.sql.PreparedStatement update = connection.prepareStatement(
                        "UPDATE skiplock_jobs SET id = ? WHERE id = ?")) {
            driver.dialect().setUuid(update, 1, to);
            driver.dialect().setUuid(update, 2, from);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
    }

    @Test
    void aWorkerDeletesJobsFinishedLongerAgoThanItsRetentionAtEachPruneInterval() {
        Skiplock worker = started(builder(config -> config.queue("done", 1).retention(Duration.ofSeconds(1))
                .pruneInterval(Duration.ofMillis(200))).handler("work", Work.class, context -> JobOutcome.complete()));
        Job finished = worker.enqueue(JobRequest.of("work", new Work("finished")).withQueue("done"));
        Job queued = worker.enqueue(JobRequest.of("work", new Work("queued"))); // queue default: nobody works it

        await().atMost(WAIT).until(() -> worker.get(finished.id()).isEmpty());
        assertThat(worker.get(queued.id())).isPresent();
    }
}
