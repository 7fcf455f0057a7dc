package dev.skiplock.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.HeldAttempt;
import dev.skiplock.internal.store.JobStore;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot path's status events and counts (hot_path.sql, written by the store since migration 0017;
 * the events read from the job rows since 0018) commit with the claim or success they account for:
 * a second connection that reads while the claim's or the completion's transaction is stopped
 * between its change and its bookkeeping sees neither; a bookkeeping that fails takes the change
 * back with it.
 */
class SqliteHotPathBookkeepingTest {
    /** A statement of the bookkeeping after a claim or a success (hot_path.sql, count_status_changes, after pass_event_seqs). */
    private static final String BOOKKEEPING = "SET jobs = skiplock_job_counts.jobs + CASE WHEN skiplock_job_counts.status";
    /** The statement that moves the events' counter past the seqs a claim or a success gave (hot_path.sql, pass_event_seqs). */
    private static final String PASS_EVENT_SEQS = "UPDATE sqlite_sequence SET seq = seq +";

    @TempDir
    Path folder;

    private String url;
    private Skiplock client;
    /** What the next run of the bookkeeping statement meets: a pause, a failure, or nothing. */
    private final AtomicReference<Interruption> next = new AtomicReference<>();
    /** The text of the statement {@link #next} stops: the bookkeeping's count unless a test says otherwise. */
    private volatile String interrupted = BOOKKEEPING;
    private JobStore store;

    @BeforeEach
    void openTheDatabase() {
        url = "jdbc:sqlite:" + folder.resolve("jobs.db");
        client = Skiplock.builder().url(url).build();
        store = new JobStore(interrupted(client.dataSource()), new SqliteDriver());
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aReaderSeesAClaimAndASuccessOnlyWithTheirEventsAndCounts() throws Exception {
        Job job = client.enqueue(JobRequest.of("bookkept", Map.of()));

        Pause claimPause = new Pause();
        next.set(claimPause);
        CompletableFuture<List<Claimed>> claiming = CompletableFuture.supplyAsync(() -> store.claimJobs(claim(), null, 10));
        claimPause.awaitReached();
        assertThat(read(job)).as("while the claim's bookkeeping waits")
                .isEqualTo(new Seen("queued", 0, 0, counts(1, 0, 0), 0));
        claimPause.go();
        List<Claimed> claimed = claiming.get(30, TimeUnit.SECONDS);
        assertThat(claimed).extracting(c -> c.job().id()).containsExactly(job.id());
        assertThat(read(job)).isEqualTo(new Seen("running", 1, 0, counts(0, 1, 0), 0));
        assertThat(eventTimeIsTheRowsTime(job, "running", "started_at")).isTrue();

        Pause successPause = new Pause();
        next.set(successPause);
        HeldAttempt lease = claimed.getFirst().lease();
        CompletableFuture<Set<HeldAttempt>> completing = CompletableFuture.supplyAsync(() -> store.completeJobs(
                List.of(new Completion(lease, JobStatus.SUCCEEDED, 0, null, null, 0))));
        successPause.awaitReached();
        assertThat(read(job)).as("while the success's bookkeeping waits")
                .isEqualTo(new Seen("running", 1, 0, counts(0, 1, 0), 0));
        successPause.go();
        assertThat(completing.get(30, TimeUnit.SECONDS)).containsExactly(lease);
        assertThat(read(job)).isEqualTo(new Seen("succeeded", 1, 1, counts(0, 0, 1), 1));
        assertThat(eventTimeIsTheRowsTime(job, "succeeded", "finished_at")).isTrue();
    }

    @Test
    void aBookkeepingThatFailsTakesTheClaimOrTheSuccessBack() throws Exception {
        Job job = client.enqueue(JobRequest.of("bookkept", Map.of()));

        next.set(new Failure());
        assertThatThrownBy(() -> store.claimJobs(claim(), null, 10)).hasMessageContaining("test: bookkeeping failed");
        assertThat(read(job)).isEqualTo(new Seen("queued", 0, 0, counts(1, 0, 0), 0));

        List<Claimed> claimed = store.claimJobs(claim(), null, 10);
        HeldAttempt lease = claimed.getFirst().lease();
        next.set(new Failure());
        assertThatThrownBy(() -> store.completeJobs(List.of(new Completion(lease, JobStatus.SUCCEEDED, 0, null, null, 0))))
                .hasMessageContaining("test: bookkeeping failed");
        assertThat(read(job)).isEqualTo(new Seen("running", 1, 0, counts(0, 1, 0), 0));

        assertThat(store.completeJobs(List.of(new Completion(lease, JobStatus.SUCCEEDED, 0, null, null, 0))))
                .containsExactly(lease);
        assertThat(read(job)).isEqualTo(new Seen("succeeded", 1, 1, counts(0, 0, 1), 1));
    }

    /**
     * An idle claimer claims every poll interval: a claim that finds nothing must change no page, or
     * each of its commits would write the WAL (and, by default, sync it). The events' counter moves
     * only past seqs a claim gave (migration 0018).
     */
    @Test
    void aClaimThatFindsNothingWritesNothing() throws Exception {
        try (Connection reader = DriverManager.getConnection(url)) {
            String before = single(reader, "PRAGMA data_version");
            assertThat(store.claimJobs(claim(), null, 10)).isEmpty();
            assertThat(single(reader, "PRAGMA data_version")).as("changed by another connection's commit").isEqualTo(before);

            Job job = client.enqueue(JobRequest.of("bookkept", Map.of()));
            String counter = "SELECT seq FROM sqlite_sequence WHERE name = 'skiplock_job_events'";
            long beforeClaim = Long.parseLong(single(reader, counter));
            String beforeClaimVersion = single(reader, "PRAGMA data_version");
            List<Claimed> claimed = store.claimJobs(claim(), null, 10);
            assertThat(claimed).hasSize(1);
            assertThat(single(reader, "PRAGMA data_version")).as("a claim that took a job commits").isNotEqualTo(beforeClaimVersion);
            assertThat(Long.parseLong(single(reader, counter))).isEqualTo(beforeClaim + 1);
            assertThat(single(reader, "SELECT started_seq FROM skiplock_jobs WHERE id = ?", job.id().toString()))
                    .isEqualTo(String.valueOf(beforeClaim + 1));
        }
    }

    /**
     * A success batch gives each job the counter plus its place in the batch, and the counter moves
     * past the whole batch: a stale outcome's place stays unused, never taken by a later event row.
     */
    @Test
    void aSuccessBatchPassesEverySeqItGaveAndNoEventSharesOne() throws Exception {
        Job job = client.enqueue(JobRequest.of("bookkept", Map.of()));
        HeldAttempt lease = store.claimJobs(claim(), null, 10).getFirst().lease();
        HeldAttempt stale = new HeldAttempt(job.id(), lease.attempt(), UUID.randomUUID());
        try (Connection reader = DriverManager.getConnection(url)) {
            String counter = "SELECT seq FROM sqlite_sequence WHERE name = 'skiplock_job_events'";
            long before = Long.parseLong(single(reader, counter));
            assertThat(store.completeJobs(List.of(new Completion(stale, JobStatus.SUCCEEDED, 0, null, null, 0),
                    new Completion(lease, JobStatus.SUCCEEDED, 0, null, null, 0)))).containsExactly(lease);
            assertThat(Long.parseLong(single(reader, counter))).isEqualTo(before + 2);
            assertThat(single(reader, "SELECT finished_seq FROM skiplock_jobs WHERE id = ?", job.id().toString()))
                    .isEqualTo(String.valueOf(before + 2));

            client.retry(job.id()); // its start and success become rows, with their seqs; a queued event follows
            assertThat(single(reader, "SELECT count(*) FROM (SELECT seq FROM skiplock_job_event_log GROUP BY seq"
                    + " HAVING count(*) > 1)")).isEqualTo("0");
            assertThat(single(reader, "SELECT count(*) FROM skiplock_job_event_log WHERE job_id = ? AND type = 'status'",
                    job.id().toString())).isEqualTo("4");
        }
    }

    /**
     * The interleaving the counter relies on (migration 0018): between the claim that gave its jobs
     * the counter plus their places and the statement that moves the counter past them, no other
     * connection can write an event row, which would take one of those seqs. The claim's transaction
     * holds SQLite's write lock there, so another writer is refused until it commits, and the event
     * row it then writes comes after every seq the claim gave.
     */
    @Test
    void noEventRowTakesASeqBetweenTheClaimAndTheCountersMove() throws Exception {
        Job claimedJob = client.enqueue(JobRequest.of("bookkept", Map.of()));
        interrupted = PASS_EVENT_SEQS;
        Pause pause = new Pause();
        next.set(pause);
        CompletableFuture<List<Claimed>> claiming = CompletableFuture.supplyAsync(() -> store.claimJobs(claim(), null, 10));
        pause.awaitReached();
        try (Connection other = DriverManager.getConnection(url + "?busy_timeout=0");
                Statement write = other.createStatement()) {
            assertThatThrownBy(() -> write.execute("BEGIN IMMEDIATE")).as("another writer, while the counter has not moved")
                    .isInstanceOf(SQLException.class).hasMessageContaining("SQLITE_BUSY");
        }
        pause.go();
        assertThat(claiming.get(30, TimeUnit.SECONDS)).extracting(c -> c.job().id()).containsExactly(claimedJob.id());

        Job enqueued = client.enqueue(JobRequest.of("bookkept", Map.of()));
        try (Connection reader = DriverManager.getConnection(url)) {
            long started = Long.parseLong(single(reader, "SELECT started_seq FROM skiplock_jobs WHERE id = ?",
                    claimedJob.id().toString()));
            long queued = Long.parseLong(single(reader, "SELECT seq FROM skiplock_job_event_log WHERE job_id = ?",
                    enqueued.id().toString()));
            assertThat(queued).as("the next event row's seq").isGreaterThan(started);
            assertThat(single(reader, "SELECT count(*) FROM (SELECT seq FROM skiplock_job_event_log GROUP BY seq"
                    + " HAVING count(*) > 1)")).isEqualTo("0");
        }
    }

    private static ClaimParams claim() {
        return new ClaimParams("default", "worker-1", "host-1", UUID.randomUUID(), 30_000, "[]");
    }

    /**
     * What a second connection sees of {@code job}: its status, its running and succeeded status
     * events, the counts of its tenant and queue, the finishes counted.
     */
    private record Seen(String status, int runningEvents, int succeededEvents, Map<String, Long> counts, long finishes) {
    }

    private static Map<String, Long> counts(long queued, long running, long succeeded) {
        return Map.of("queued", queued, "running", running, "succeeded", succeeded);
    }

    private Seen read(Job job) throws SQLException {
        try (Connection reader = DriverManager.getConnection(url)) {
            String status = single(reader, "SELECT status FROM skiplock_jobs WHERE id = ?", job.id().toString());
            String events = "SELECT count(*) FROM skiplock_job_event_log WHERE job_id = ? AND type = 'status' AND status = ?";
            int running = Integer.parseInt(single(reader, events, job.id().toString(), "running"));
            int succeeded = Integer.parseInt(single(reader, events, job.id().toString(), "succeeded"));
            Map<String, Long> counts = new java.util.HashMap<>();
            for (String counted : List.of("queued", "running", "succeeded")) {
                counts.put(counted, Long.parseLong(single(reader, "SELECT jobs FROM skiplock_job_counts WHERE tenant = ?"
                        + " AND queue = ? AND status = ?", job.tenant(), job.queue(), counted)));
            }
            long finishes = Long.parseLong(single(reader, "SELECT coalesce(sum(finished), 0) FROM skiplock_job_throughput"));
            return new Seen(status, running, succeeded, counts, finishes);
        }
    }

    /** Whether the job's {@code status} event carries the row's {@code column} to the millisecond, as a trigger's did. */
    private boolean eventTimeIsTheRowsTime(Job job, String status, String column) throws SQLException {
        try (Connection reader = DriverManager.getConnection(url)) {
            return "1".equals(single(reader, "SELECT e.ts = j." + column + " FROM skiplock_job_event_log AS e JOIN skiplock_jobs"
                    + " AS j ON j.id = e.job_id WHERE e.job_id = ? AND e.type = 'status' AND e.status = ?",
                    job.id().toString(), status));
        }
    }

    private static String single(Connection connection, String sql, String... params) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                statement.setString(i + 1, params[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    /** What a run of the bookkeeping statement meets before it reaches the database. */
    private interface Interruption {
        void meet() throws SQLException;
    }

    /** Stops the run until the test lets it go, after saying it got there. */
    private static final class Pause implements Interruption {
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch go = new CountDownLatch(1);

        @Override
        public void meet() {
            reached.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void awaitReached() throws InterruptedException {
            assertThat(reached.await(30, TimeUnit.SECONDS)).as("the bookkeeping ran").isTrue();
        }

        void go() {
            go.countDown();
        }
    }

    private static final class Failure implements Interruption {
        @Override
        public void meet() throws SQLException {
            throw new SQLException("test: bookkeeping failed");
        }
    }

    /** {@code target}, whose runs of the bookkeeping statement meet {@link #next} first (once each). */
    private DataSource interrupted(DataSource target) {
        return proxy(DataSource.class, target, (method, args, result) -> method.getName().equals("getConnection")
                ? proxy(Connection.class, (Connection) result, (inner, innerArgs, statement) ->
                        inner.getName().equals("prepareStatement") && ((String) innerArgs[0]).contains(interrupted)
                                ? meetingNext((PreparedStatement) statement) : statement)
                : result);
    }

    private PreparedStatement meetingNext(PreparedStatement target) {
        InvocationHandler handler = (self, method, args) -> {
            Interruption interruption = method.getName().startsWith("execute") ? next.getAndSet(null) : null;
            if (interruption != null) {
                interruption.meet();
            }
            return invoke(method, target, args);
        };
        return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, handler);
    }

    private interface After {
        Object apply(java.lang.reflect.Method method, Object[] args, Object result) throws Throwable;
    }

    @SuppressWarnings("unchecked")
    private <T> T proxy(Class<T> type, T target, After after) {
        InvocationHandler handler = (self, method, args) -> after.apply(method, args, invoke(method, target, args));
        return (T) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, handler);
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
