package dev.skiplock.conformance;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class PostgresFastPathTest extends FastPathContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * An enqueue in the caller's transaction is announced by its own commit: its statement
     * notifies (so does a lone one in Skiplock's own transaction; one overlapping another is
     * announced after its commit by the notifier's Announcer: see below). SQLite has no
     * cross-instance notification for a commit it does not see: polling finds it.
     */
    @Test
    void enqueueInTheCallersTransactionWakesTheWorkerAtCommitWithoutPolling() throws Exception {
        Skiplock worker = idleWorker();
        Skiplock producer = client();
        awaitStatus(producer, producer.enqueue(JobRequest.of("work", new Work("warm-up"))).id(), JobStatus.SUCCEEDED);
        Job job;
        try (java.sql.Connection connection = producer.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            job = producer.enqueue(connection, JobRequest.of("work", new Work("x")));
            connection.commit();
        }

        awaitStatus(producer, job.id(), JobStatus.SUCCEEDED);
        awaitCount(() -> worker.metrics().succeeded(), 2);
    }

    /** A lone enqueue's own statement notifies: the listeners hear of it at its commit, with no announcement after it. */
    @Test
    void aLoneEnqueueNotifiesInItsStatement() throws Exception {
        Skiplock producer = client();
        dev.skiplock.internal.store.JobStore store = store(producer);
        try (java.sql.Connection listener = java.sql.DriverManager.getConnection(database.url());
                java.sql.Statement statement = listener.createStatement()) {
            listen(statement);

            // The store alone: nothing but the statement itself can notify (the Announcer is the client's).
            assertThat(store.insertJobs(List.of(requested("lonely", null))).announced()).isTrue();

            org.postgresql.PGConnection postgres = listener.unwrap(org.postgresql.PGConnection.class);
            List<String> payloads = new java.util.ArrayList<>();
            await().atMost(WAIT).until(() -> {
                for (org.postgresql.PGNotification notification : postgres.getNotifications(100)) {
                    payloads.add(notification.getParameter());
                }
                return payloads.contains("q:lonely");
            });
        }
    }

    /**
     * Forced overlap: enqueue A (unique key "k") waits on a transaction that holds a live job with
     * that key, uncommitted; enqueue B, started while A is in flight, must not notify in its
     * statement (overlapping notifying commits queue on PostgreSQL's notify lock) but be announced
     * after its commit, and still wake a worker that would otherwise sleep ten minutes.
     */
    @Test
    void anEnqueueOverlappingAnotherIsAnnouncedAfterItsCommitAndStillWakesTheWorker() throws Exception {
        Skiplock worker = idleWorker();
        Skiplock producer = client();
        awaitStatus(producer, producer.enqueue(JobRequest.of("work", new Work("warm-up"))).id(), JobStatus.SUCCEEDED);
        dev.skiplock.internal.store.JobStore store = store(producer);

        try (java.sql.Connection holder = producer.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            store.insertJobs(holder, List.of(requested("other", "k")));
            java.util.concurrent.CompletableFuture<dev.skiplock.internal.store.Inserted> first =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> store.insertJobs(List.of(requested("other", "k"))));
            awaitAnInsertWaitingOnALock(producer);

            // bounded: an insert that queued behind the held one would otherwise wait for this thread
            dev.skiplock.internal.store.Inserted second = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    WAIT, () -> store.insertJobs(List.of(requested("default", null))));

            assertThat(second.announced()).isFalse();
            assertThat(first).isNotDone();
            holder.rollback();
            assertThat(first.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).announced()).isTrue();
        }

        // Through the API: the same overlap, announced by the Announcer, wakes the idle worker.
        try (java.sql.Connection holder = producer.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            store.insertJobs(holder, List.of(requested("other", "k2")));
            java.util.concurrent.CompletableFuture<Job> first = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> producer.enqueue(JobRequest.of("work", new Work("a")).withQueue("other").withUniqueKey("k2")));
            awaitAnInsertWaitingOnALock(producer);
            Job overlapping = producer.enqueue(JobRequest.of("work", new Work("b")));

            awaitStatus(producer, overlapping.id(), JobStatus.SUCCEEDED);
            holder.rollback();
            first.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        }
        // The warm-up, the first block's second job (queue default) and this one.
        awaitCount(() -> worker.metrics().succeeded(), 3);
    }

    /**
     * STYLE: background loops never die. The Announcer's statement meets an Error (out of memory,
     * say) once: that hint is lost, the next one is sent. Before, the Error ended the Announcer's
     * thread: no enqueue, retry or resume of this instance was announced again, and what it was
     * handed piled up in its queue.
     */
    @Test
    void anAnnouncerThatMeetsAnErrorAnnouncesAgain() {
        Skiplock worker = idleWorker();
        AtomicBoolean armed = new AtomicBoolean();
        Skiplock producer = track(Skiplock.builder().dataSource(BeforeStatement.onceArmedContaining(
                client().dataSource(), "pg_notify", armed, () -> {
                    // any Error (an OutOfMemoryError would take down the test's JVM: surefire exits on one)
                    throw new StackOverflowError("the test's error, thrown preparing the announcement");
                })).config(fastConfig().build()).build());
        producer.pauseQueue("default");
        Job job = producer.enqueue(JobRequest.of("work", new Work("x"))); // its statement notifies: the queue is paused

        armed.set(true);
        producer.resumeQueue("other"); // announced by the Announcer, whose statement meets the Error
        await().atMost(WAIT).untilFalse(armed);
        producer.resumeQueue("default"); // announced again: only that wakes the worker in time

        assertThat(awaitStatus(producer, job.id(), JobStatus.SUCCEEDED).attempt()).isEqualTo(1);
        awaitCount(() -> worker.metrics().succeeded(), 1);
    }

    /**
     * A listener whose LISTEN meets an Error (out of memory, say) connects again and listens: the
     * worker is woken by the next enqueue. Before, the Error ended the listener's thread: the worker
     * heard no notification again and found new jobs only at its poll interval (ten minutes here).
     */
    @Test
    void aListenerThatMeetsAnErrorListensAgain() {
        Skiplock producer = client();
        AtomicBoolean armed = new AtomicBoolean(true);
        Skiplock worker = started(Skiplock.builder().dataSource(BeforeStatement.onceArmedExecuting(
                        client().dataSource(), "LISTEN", armed, () -> {
                            // any Error (an OutOfMemoryError would take down the test's JVM: surefire exits on one)
                            throw new StackOverflowError("the test's error, thrown sending LISTEN");
                        }))
                .config(fastConfig().queue("default", 1).pollInterval(Duration.ofMinutes(10)).build())
                .handler("work", Work.class, context -> JobOutcome.complete()));
        await().atMost(WAIT).untilFalse(armed);

        await().atMost(WAIT).until(() -> database.listenerCount(producer.dataSource()) == 1);
        Job job = producer.enqueue(JobRequest.of("work", new Work("x")));

        assertThat(awaitStatus(producer, job.id(), JobStatus.SUCCEEDED).attempt()).isEqualTo(1);
        awaitCount(() -> worker.metrics().succeeded(), 1);
    }

    /**
     * A LISTEN connection that goes silent without a word (stalled by the proxy, as a firewall's idle
     * timeout or a paused host leaves it) is noticed by the listener's probe and replaced, and the
     * worker finds what came meanwhile. Before, nothing probed it: the worker heard no notification
     * again and found new jobs only at its poll interval (ten minutes here) (notifier reviewer).
     */
    @Test
    void aListenConnectionGoneSilentIsNoticedAndReplaced() throws Exception {
        Skiplock producer = client();
        var server = FaultProxy.serverOf(database.url());
        try (FaultProxy proxy = new FaultProxy(server.getHostString(), server.getPort(), 0)) {
            Skiplock worker = started(Skiplock.builder().url(proxy.url(database.url()))
                    .config(fastConfig().queue("default", 1).pollInterval(Duration.ofMinutes(10)).build())
                    .handler("work", Work.class, context -> JobOutcome.complete()));
            await().atMost(WAIT).until(() -> proxy.stallListeners() == 1);

            Job job = producer.enqueue(JobRequest.of("work", new Work("x")));

            assertThat(awaitStatus(producer, job.id(), JobStatus.SUCCEEDED).attempt()).isEqualTo(1);
            awaitCount(() -> worker.metrics().succeeded(), 1);
        }
    }

    /** A worker of queue default that polls every ten minutes: only a notification wakes it in time. */
    private Skiplock idleWorker() {
        return started(builder(config -> config.queue("default", 1).pollInterval(Duration.ofMinutes(10)))
                .handler("work", Work.class, context -> JobOutcome.complete()));
    }

    /** Until one enqueue's INSERT waits on a lock (the uncommitted job holding its unique key). */
    private static void awaitAnInsertWaitingOnALock(Skiplock skiplock) {
        await().atMost(WAIT).until(() -> Jdbc.query(skiplock.dataSource(),
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                        + " AND query LIKE '%INSERT INTO skiplock_jobs%'", row -> row.getLong(1)).getFirst() == 1);
    }
}
