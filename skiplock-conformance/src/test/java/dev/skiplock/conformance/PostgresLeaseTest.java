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
