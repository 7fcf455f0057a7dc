package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class PostgresLeaseTest extends LeaseContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * A job released at shutdown keeps the log lines its handler wrote before: the release waits for
     * the lines queued before it. Forced: the test holds another job's event turn, so the completer
     * (one thread) waits on that job's line while this job's line waits behind it in its queue; the
     * close then releases this job. Before, the release cleared the lease first, and the line, fenced
     * by it, was dropped once the completer got to it. (PostgreSQL: SQLite's one writer cannot hold
     * the completer on one job's write while another job is released.)
     */
    @Test
    void aJobReleasedAtShutdownKeepsTheLinesItLoggedBefore() throws Exception {
        CountDownLatch bothStarted = new CountDownLatch(2);
        CountDownLatch otherMayLog = new CountDownLatch(1);
        CountDownLatch mayLog = new CountDownLatch(1);
        CountDownLatch logged = new CountDownLatch(1);
        Skiplock worker = track(builder(config -> config.queue("default", 2).shutdownTimeout(Duration.ofMillis(300)))
                .handler("work", Work.class, context -> {
                    bothStarted.countDown();
                    boolean other = context.args().label().equals("other");
                    awaitIgnoringInterrupts(other ? otherMayLog : mayLog);
                    context.log("stdout", other ? "held up" : "last words");
                    if (!other) {
                        logged.countDown();
                    }
                    blockUntilInterrupted(); // outlives the shutdown's wait: released
                    return JobOutcome.complete();
                }).build()).start();
        Job job = worker.enqueue(JobRequest.of("work", new Work("this")));
        Job other = worker.enqueue(JobRequest.of("work", new Work("other")));
        assertThat(bothStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        try (Connection turn = java.sql.DriverManager.getConnection(database.url())) {
            turn.setAutoCommit(false);
            try (PreparedStatement hold = turn.prepareStatement("SELECT pg_advisory_xact_lock(skiplock_event_turn_key(?))")) {
                hold.setObject(1, other.id());
                hold.execute();
            }
            otherMayLog.countDown();
            await().atMost(WAIT).until(() -> Jdbc.query(worker.dataSource(),
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
                    row -> row.getLong(1)).getFirst() == 1); // the completer waits on the other job's turn
            mayLog.countDown();
            assertThat(logged.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            Thread closing = new Thread(worker::close, "closing");
            closing.start();
            // with the fix it waits for the lines; without, it released at once and waits for the completer's end
            await().atMost(WAIT).until(() -> !closing.isAlive() || java.util.Arrays.stream(closing.getStackTrace())
                    .anyMatch(frame -> frame.getClassName().endsWith(".Completer")
                            && (frame.getMethodName().equals("awaitWritten") || frame.getMethodName().equals("stop"))));
            turn.rollback(); // the completer goes on
            closing.join(WAIT.toMillis());
            assertThat(closing.isAlive()).isFalse();
        }

        Job released = client().get(job.id()).orElseThrow();
        assertThat(released.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(client().events(job.id(), 0, 100)).filteredOn(event -> "log".equals(event.type()))
                .extracting(dev.skiplock.JobEvent::message).containsExactly("last words");
    }

    /**
     * A running job whose row another transaction holds for a moment when the heartbeat runs (as a
     * progress update or another node's short write does; forced: the test holds it FOR SHARE from just
     * before the heartbeat's statement to just before the statement's next pass) keeps its lease:
     * the heartbeat, which skips a held row rather than wait for it, asks again at once and extends
     * it in the same round, and the job is not taken for lost. Without the second pass its lease went
     * unextended for a whole interval; without the statement's answer for a skipped row, the
     * execution was stopped as if its lease were gone.
     */
    @Test
    void aJobWhoseRowIsHeldForAMomentKeepsItsLease() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Skiplock client = client();
        String heartbeat = BeforeStatement.sql(client, "jobs", "heartbeat");
        AtomicReference<java.util.UUID> target = new AtomicReference<>();
        AtomicInteger pass = new AtomicInteger();
        AtomicReference<Instant> before = new AtomicReference<>();
        Connection holder = client.dataSource().getConnection();
        holder.setAutoCommit(false);
        javax.sql.DataSource pausing = BeforeStatement.eachTime(client.dataSource(), heartbeat, () -> {
            if (target.get() == null) {
                return;
            }
            switch (pass.incrementAndGet()) {
                case 1 -> before.set(lockRow(holder, target.get(), "FOR SHARE"));
                case 2 -> holder.commit();
                default -> { }
            }
        });
        try {
            // heartbeats 5 s apart: the next round's would extend the lease too, long after this one's pass
            Skiplock worker = started(Skiplock.builder().dataSource(pausing).config(fastConfig()
                    .leaseTtl(Duration.ofSeconds(30)).heartbeatInterval(Duration.ofSeconds(5)).queue("default", 1).build())
                    .handler("work", Work.class, context -> {
                        release.await();
                        return JobOutcome.complete("done");
                    }));
            Job job = worker.enqueue(JobRequest.of("work", new Work("x")));
            awaitStatus(worker, job.id(), JobStatus.RUNNING);
            target.set(job.id());

            await().atMost(WAIT).until(() -> before.get() != null);
            await().atMost(Duration.ofSeconds(4)).until(() -> lockedUntil(client, job.id()).isAfter(before.get()));
            assertThat(pass.get()).as("the round's second pass extended it").isEqualTo(2);
            release.countDown();

            Job done = worker.awaitTerminal(job.id(), WAIT);
            assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
            assertThat(done.attempt()).isEqualTo(1);
            assertThat(worker.metrics().leasesLost()).isZero();
        } finally {
            target.set(null); // the hook leaves holder alone from here: it would use it from the heartbeat's thread
            release.countDown();
            holder.rollback();
            holder.close();
        }
    }

    /**
     * The job's own log, step and step-event writes lock its row FOR KEY SHARE, which the heartbeat
     * does not skip (forced: the test holds it so for the whole time): the lease is extended at the
     * first pass of the next round. Before, those writes took FOR SHARE and the heartbeat FOR
     * UPDATE: a job that logs all the time could have every pass find its row held, its lease lapse
     * and its execution stopped by the lease watch (third reader).
     */
    @Test
    void aJobWhoseOwnWritesHoldItsRowKeepsItsLease() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Skiplock client = client();
        try (Connection holder = client.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try {
                Skiplock worker = started(builder(config -> config.leaseTtl(Duration.ofSeconds(30))
                        .heartbeatInterval(Duration.ofMillis(500)).queue("default", 1))
                        .handler("work", Work.class, context -> {
                            release.await();
                            return JobOutcome.complete("done");
                        }));
                Job job = worker.enqueue(JobRequest.of("work", new Work("x")));
                awaitStatus(worker, job.id(), JobStatus.RUNNING);
                Instant before = lockRow(holder, job.id(), "FOR KEY SHARE");

                await().atMost(WAIT).until(() -> lockedUntil(client, job.id()).isAfter(before));
                holder.rollback(); // the completion takes the row FOR UPDATE, which does wait for KEY SHARE
                release.countDown();
                assertThat(worker.awaitTerminal(job.id(), WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);
                assertThat(worker.metrics().leasesLost()).isZero();
            } finally {
                release.countDown();
                holder.rollback();
            }
        }
    }

    /** Locks the job's row on {@code holder} (in its open transaction) with {@code lock}; returns its locked_until then. */
    private static Instant lockRow(Connection holder, java.util.UUID id, String lock) throws java.sql.SQLException {
        try (PreparedStatement select = holder.prepareStatement(
                "SELECT locked_until FROM skiplock_jobs WHERE id = ? " + lock)) {
            select.setObject(1, id);
            try (java.sql.ResultSet row = select.executeQuery()) {
                row.next();
                return row.getTimestamp(1).toInstant();
            }
        }
    }

    private static Instant lockedUntil(Skiplock client, java.util.UUID id) {
        return Jdbc.query(client.dataSource(), "SELECT locked_until FROM skiplock_jobs WHERE id = '" + id + "'",
                row -> row.getTimestamp(1).toInstant()).getFirst();
    }
}
