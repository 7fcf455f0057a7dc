package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobEvent;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * PostgreSQL: a completion announces its jobs ({@code e:} notifications) only while some process
 * follows job events, and a follower that starts while a completion that announced nothing is
 * still open reads what it wrote (the follow lock's handshake: FollowLock.java, complete_jobs).
 */
class PostgresEventFollowersTest extends ContractBase {
    /** The follow key's slots: FollowLock.SLOTS, which FollowLockTest holds complete_jobs to. */
    private static final int SLOTS = 8;

    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    record Work(String label) {
    }

    @Test
    void aCompletionNobodyFollowsAnnouncesNothing() throws Exception {
        Skiplock worker = started(builder(config -> config.queue("default", 4))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        try (Connection listener = DriverManager.getConnection(database.url());
                Statement statement = listener.createStatement()) {
            FastPathContract.listen(statement);
            Job job = worker.enqueue(JobRequest.of("work", new Work("nobody follows")));
            awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);

            assertThat(payloadsUntilMarker(listener)).noneMatch(payload -> payload.startsWith("e:"));
        }
    }

    /**
     * Another process's completion holds this completion's own slot of the follow key (their
     * backends' ids meet modulo the slots): the completion takes the next slot and announces
     * nothing, since nobody follows. With one try per completion it announced its jobs (failed
     * before: the completion held no slot).
     */
    @Test
    void aCompletionWhoseSlotAnotherCompletionHoldsTakesTheNextAndAnnouncesNothing() throws Exception {
        Skiplock client = client();
        Job job = client.enqueue(JobRequest.of("work", new Work("slot taken")));
        try (Connection claimer = DriverManager.getConnection(database.url());
                Connection completer = DriverManager.getConnection(database.url());
                Connection otherCompletion = DriverManager.getConnection(database.url());
                Connection listener = DriverManager.getConnection(database.url());
                Statement listen = listener.createStatement()) {
            FastPathContract.listen(listen);
            int home = backendPid(completer) % SLOTS;
            holdSlot(otherCompletion, home);

            completeWithoutCommit(client, claimer, completer, job);
            assertThat(slotsHeld(claimer, backendPid(completer))).containsExactly((home + 1) % SLOTS);
            completer.commit();

            assertThat(payloadsUntilMarker(listener)).as("the completion announced nothing")
                    .noneMatch(payload -> payload.startsWith("e:"));
            otherCompletion.rollback();
        }
    }

    /**
     * A completion held open as an application's transaction holds one ({@code completeInTransaction}):
     * a follower waits for it at most about a second, then reads, and its own wait ends when it
     * asked, though the completion is still open.
     */
    @Test
    void aFollowerDoesNotWaitForAnOpenCompletionLongerThanItsOwnWait() throws Exception {
        Skiplock client = client();
        Skiplock follower = started(builder(config -> { }));
        Job job = client.enqueue(JobRequest.of("work", new Work("held open")));
        long enqueuedSeq = client.events(job.id(), 0, 100).getLast().seq();
        try (Connection claimer = DriverManager.getConnection(database.url());
                Connection completer = DriverManager.getConnection(database.url())) {
            completeWithoutCommit(client, claimer, completer, job);

            CompletableFuture<List<JobEvent>> read = awaitEventsElsewhere(follower, job, enqueuedSeq, Duration.ofSeconds(2));
            assertThat(read.get(WAIT.toSeconds(), TimeUnit.SECONDS)).extracting(JobEvent::status)
                    .doesNotContain(JobStatus.SUCCEEDED.wireName());
            completer.rollback();
        }
    }

    /**
     * The completion takes its slot of the follow key (nobody follows yet, so it announces
     * nothing) and stays open; a follower starting now waits for its commit before it reads, and
     * then reads the job's terminal event. Without the follower's share (a follower that read at
     * once) it read before the commit and, with no announcement coming, waited for its next read.
     */
    @Test
    void aFollowerThatStartsWhileASilentCompletionIsOpenWaitsForItsCommitAndReadsIt() throws Exception {
        aFollowerWaitsForTheOpenCompletion(false);
    }

    /**
     * As above, with the completion in the slot after its own: another completion held its own,
     * then ended. A follower takes the share of every slot, so it waits for this one too.
     */
    @Test
    void aFollowerWaitsForACompletionThatTookTheNextSlot() throws Exception {
        aFollowerWaitsForTheOpenCompletion(true);
    }

    private void aFollowerWaitsForTheOpenCompletion(boolean ownSlotTaken) throws Exception {
        Skiplock client = client();
        Skiplock follower = started(builder(config -> { }));
        Job job = client.enqueue(JobRequest.of("work", new Work("raced")));
        long enqueuedSeq = client.events(job.id(), 0, 100).getLast().seq();
        try (Connection claimer = DriverManager.getConnection(database.url());
                Connection completer = DriverManager.getConnection(database.url());
                Connection otherCompletion = DriverManager.getConnection(database.url());
                Connection listener = DriverManager.getConnection(database.url());
                Statement listen = listener.createStatement()) {
            FastPathContract.listen(listen);
            int home = backendPid(completer) % SLOTS;
            if (ownSlotTaken) {
                holdSlot(otherCompletion, home);
            }
            completeWithoutCommit(client, claimer, completer, job);
            if (ownSlotTaken) {
                otherCompletion.rollback();
            }
            int taken = ownSlotTaken ? (home + 1) % SLOTS : home;
            assertThat(slotsHeld(claimer, backendPid(completer))).containsExactly(taken);

            CompletableFuture<List<JobEvent>> read = awaitEventsElsewhere(follower, job, enqueuedSeq, WAIT);
            await().atMost(WAIT).pollInterval(Duration.ofMillis(10))
                    .until(() -> waitingFollowLocks(claimer) > 0);
            assertThat(read).as("the follower waits for the open completion").isNotDone();

            completer.commit();
            List<JobEvent> events = read.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(events).extracting(JobEvent::status).contains(JobStatus.SUCCEEDED.wireName());
            assertThat(payloadsUntilMarker(listener)).as("the completion announced nothing")
                    .noneMatch(payload -> payload.startsWith("e:"));
        }
    }

    /**
     * A follower is part way through taking the slots (it holds those up to the completion's own
     * and waits at the next, which another completion holds) when the completion comes: its tries
     * fail where the follower holds a share or another completion the slot, and it takes the slot
     * after those, ahead of the follower, without announcing. The follower then waits there for its
     * commit, and reads the job's terminal event.
     */
    @Test
    void aCompletionThatTakesASlotAheadOfAFollowerIsWaitedFor() throws Exception {
        Skiplock client = client();
        Skiplock follower = started(builder(config -> { }));
        Job job = client.enqueue(JobRequest.of("work", new Work("ahead")));
        long enqueuedSeq = client.events(job.id(), 0, 100).getLast().seq();
        try (Connection claimer = DriverManager.getConnection(database.url());
                Connection completer = connectionWithOwnSlotBelow(SLOTS - 2);
                Connection otherCompletion = DriverManager.getConnection(database.url());
                Connection listener = DriverManager.getConnection(database.url());
                Statement listen = listener.createStatement()) {
            FastPathContract.listen(listen);
            int home = backendPid(completer) % SLOTS;
            UUID token = claim(client, claimer); // before the follower's take, which is bounded (FollowLock: a second)
            holdSlot(otherCompletion, home + 1);
            CompletableFuture<List<JobEvent>> read = awaitEventsElsewhere(follower, job, enqueuedSeq, WAIT);
            await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> followerWaitsAt(claimer, home + 1));

            completeWithoutCommit(client, completer, job, token);
            assertThat(slotsHeld(claimer, backendPid(completer))).containsExactly(home + 2);
            otherCompletion.rollback();
            await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> followerWaitsAt(claimer, home + 2));
            assertThat(read).as("the follower waits for the open completion").isNotDone();

            completer.commit();
            assertThat(read.get(WAIT.toSeconds(), TimeUnit.SECONDS)).extracting(JobEvent::status)
                    .contains(JobStatus.SUCCEEDED.wireName());
            assertThat(payloadsUntilMarker(listener)).as("the completion announced nothing")
                    .noneMatch(payload -> payload.startsWith("e:"));
        }
    }

    /**
     * The follow lock's connection borrowed from an application's pool (one Skiplock did not make
     * from a URL) goes back to it with the application's session settings: the take's timeouts
     * last for its transaction only. Before, the take set its timeout for the session and reset it
     * to the server's default when it gave the connection back (failed before: "0").
     */
    @Test
    void aConnectionBorrowedForTheFollowLockGoesBackWithTheApplicationsSettings() throws Exception {
        org.postgresql.ds.PGSimpleDataSource source = new org.postgresql.ds.PGSimpleDataSource();
        source.setURL(database.url());
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setDataSource(source);
        config.setMaximumPoolSize(4);
        config.setConnectionInitSql("SET statement_timeout = 12345; SET lock_timeout = 2345");
        Job job = client().enqueue(JobRequest.of("work", new Work("borrowed")));
        try (com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(config);
                Connection observer = DriverManager.getConnection(database.url())) {
            Skiplock.Builder borrowing = Skiplock.builder().dataSource(pool).config(fastConfig().build());
            try (Skiplock follower = borrowing.build().start()) {
                follower.awaitEvents(job.id(), 0, 100, Duration.ofMillis(50));
                assertThat(shareHolder(observer)).as("the follower took the share").isNotZero();
            }
            List<Connection> all = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    all.add(pool.getConnection());
                }
                for (Connection connection : all) {
                    assertThat(setting(connection, "statement_timeout")).isEqualTo("12345ms");
                    assertThat(setting(connection, "lock_timeout")).isEqualTo("2345ms");
                }
            } finally {
                for (Connection connection : all) {
                    connection.close();
                }
            }
        }
    }

    private static String setting(Connection connection, String name) throws Exception {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SHOW " + name)) {
            row.next();
            return row.getString(1);
        }
    }

    /**
     * The connection holding a follower's share is killed: the process takes the share again on a
     * new connection while it still follows, and a completion then announces the followed job.
     */
    @Test
    void aFollowLockWhoseConnectionWasKilledIsTakenAgainWhileTheProcessFollows() throws Exception {
        Skiplock client = client();
        Skiplock follower = started(builder(config -> { }));
        Job job = client.enqueue(JobRequest.of("work", new Work("followed")).withQueue("later"));
        long enqueuedSeq = client.events(job.id(), 0, 100).getLast().seq();
        CompletableFuture<List<JobEvent>> read = awaitSucceededElsewhere(follower, job, enqueuedSeq);
        try (Connection observer = DriverManager.getConnection(database.url());
                Statement statement = observer.createStatement();
                Connection listener = DriverManager.getConnection(database.url());
                Statement listen = listener.createStatement()) {
            FastPathContract.listen(listen);
            int first = await().atMost(WAIT).pollInterval(Duration.ofMillis(10))
                    .until(() -> shareHolder(observer), pid -> pid != 0);
            statement.execute("SELECT pg_terminate_backend(" + first + ")");

            await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                    .until(() -> shareHolder(observer), pid -> pid != 0 && pid != first);
            started(builder(config -> config.queue("later", 1))
                    .handler("work", Work.class, context -> JobOutcome.complete()));
            assertThat(read.get(WAIT.toSeconds(), TimeUnit.SECONDS)).extracting(JobEvent::status)
                    .contains(JobStatus.SUCCEEDED.wireName());
            assertThat(payloadsUntilMarker(listener)).as("the completion announced the job")
                    .anySatisfy(payload -> assertThat(payload).startsWith("e:").contains(job.id().toString()));
        }
    }

    private static int backendPid(Connection connection) throws Exception {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT pg_backend_pid()")) {
            row.next();
            return row.getInt(1);
        }
    }

    /** A new connection whose backend's own slot of the follow key is below {@code bound}: a backend id is as it comes. */
    private Connection connectionWithOwnSlotBelow(int bound) throws Exception {
        while (true) {
            Connection connection = DriverManager.getConnection(database.url());
            try {
                if (backendPid(connection) % SLOTS < bound) {
                    return connection;
                }
            } catch (Exception e) {
                connection.close();
                throw e;
            }
            connection.close();
        }
    }

    /** Whether a share request on {@code slot} of this schema's follow key waits (a follower taking the slots). */
    private static boolean followerWaitsAt(Connection connection, int slot) throws Exception {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                        + " AND NOT granted AND mode = 'ShareLock' AND objid = " + slot + " AND classid::int8"
                        + " = (hashtext('skiplock-followers:' || current_schema())::int8 & 4294967295)")) {
            row.next();
            return row.getLong(1) > 0;
        }
    }

    /** Takes {@code slot} of this schema's follow key in a transaction left open, as a completion holds it. */
    private static void holdSlot(Connection connection, int slot) throws Exception {
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_advisory_xact_lock(hashtext('skiplock-followers:' || current_schema()), "
                    + slot + ")");
        }
    }

    /** The slots of this schema's follow key that backend {@code pid} holds in exclusive mode. */
    private static List<Integer> slotsHeld(Connection connection, int pid) throws Exception {
        List<Integer> slots = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT objid FROM pg_locks WHERE locktype = 'advisory'"
                        + " AND granted AND mode = 'ExclusiveLock' AND pid = " + pid + " AND classid::int8"
                        + " = (hashtext('skiplock-followers:' || current_schema())::int8 & 4294967295)"
                        + " ORDER BY objid")) {
            while (row.next()) {
                slots.add(row.getInt(1));
            }
        }
        return slots;
    }

    /** The backend holding every slot of this schema's follow key in share mode, or 0. */
    private static int shareHolder(Connection connection) throws Exception {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT pid FROM pg_locks WHERE locktype = 'advisory'"
                        + " AND granted AND mode = 'ShareLock' AND classid::int8"
                        + " = (hashtext('skiplock-followers:' || current_schema())::int8 & 4294967295)"
                        + " GROUP BY pid HAVING count(*) = 8")) {
            return row.next() ? row.getInt(1) : 0;
        }
    }

    /**
     * Claims {@code job} on {@code claimer}, then runs complete_jobs for it on {@code completer} in a
     * transaction left open: nobody follows yet, so the completion takes its slot of the follow key.
     */
    private static void completeWithoutCommit(Skiplock client, Connection claimer, Connection completer, Job job)
            throws Exception {
        completeWithoutCommit(client, completer, job, claim(client, claimer));
    }

    /** Claims the job waiting on {@code claimer}; returns its lease token. */
    private static UUID claim(Skiplock client, Connection claimer) throws Exception {
        try (PreparedStatement claim = PostgresClaimCall.prepare(claimer, PostgresClaimCall.statement(client), null, 1);
                ResultSet row = claim.executeQuery()) {
            assertThat(row.next()).isTrue();
            return row.getObject("lease_token", UUID.class);
        }
    }

    /** Runs complete_jobs for the claimed {@code job} on {@code completer} in a transaction left open. */
    private static void completeWithoutCommit(Skiplock client, Connection completer, Job job, UUID token)
            throws Exception {
        completer.setAutoCommit(false);
        try (PreparedStatement complete = PostgresCompleteCall.prepare(completer, PostgresCompleteCall.statement(client),
                List.of(job.id()), List.of(token))) {
            try (ResultSet row = complete.executeQuery()) {
                assertThat(row.next()).as("the completion applied").isTrue();
            }
        }
    }

    /** {@code follower.awaitEvents} of the job's events after {@code afterSeq}, on another thread. */
    private static CompletableFuture<List<JobEvent>> awaitEventsElsewhere(Skiplock follower, Job job, long afterSeq,
            Duration maxWait) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return follower.awaitEvents(job.id(), afterSeq, 100, maxWait);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * The job's events after {@code afterSeq} that {@code follower.awaitEvents} returns, read again
     * from the last until one is {@code succeeded}, on another thread: a wait ends at the first new
     * event, and the claim's {@code running} may come alone before the completion commits.
     */
    private static CompletableFuture<List<JobEvent>> awaitSucceededElsewhere(Skiplock follower, Job job,
            long afterSeq) {
        return CompletableFuture.supplyAsync(() -> {
            List<JobEvent> events = new ArrayList<>();
            long deadline = System.nanoTime() + WAIT.toNanos();
            try {
                while (events.stream().noneMatch(e -> JobStatus.SUCCEEDED.wireName().equals(e.status()))
                        && System.nanoTime() < deadline) {
                    long seq = events.isEmpty() ? afterSeq : events.getLast().seq();
                    events.addAll(follower.awaitEvents(job.id(), seq, 100, WAIT));
                }
                return events;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Advisory lock requests on this schema's follow key that wait (a follower behind a completion). */
    private static long waitingFollowLocks(Connection connection) throws Exception {
        return Jdbc.number(connection, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                + " AND NOT granted AND classid::int8"
                + " = (hashtext('skiplock-followers:' || current_schema())::int8 & 4294967295)");
    }

    /**
     * The payloads {@code listener} receives until a marker sent now: one channel delivers in commit
     * order, so whatever was announced before this call has arrived by then.
     */
    private List<String> payloadsUntilMarker(Connection listener) throws Exception {
        try (Connection sender = DriverManager.getConnection(database.url());
                Statement statement = sender.createStatement()) {
            statement.execute("SELECT pg_notify('skiplock:' || current_schema(), 'marker')");
        }
        List<String> payloads = new ArrayList<>();
        PGConnection postgres = listener.unwrap(PGConnection.class);
        await().atMost(WAIT).until(() -> {
            for (PGNotification notification : postgres.getNotifications(100)) {
                payloads.add(notification.getParameter());
            }
            return payloads.contains("marker");
        });
        return payloads;
    }
}
