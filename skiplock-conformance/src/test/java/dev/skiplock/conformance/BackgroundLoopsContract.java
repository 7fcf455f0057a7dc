package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.SqlFile;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * STYLE: background loops never die. A worker's claimer, heartbeat and completer each meet an
 * Error (out of memory, say) thrown where their statement is prepared, once, after the worker
 * started: each logs it and goes on. Before, the claimer's thread and the completer's died with it
 * (the worker then heartbeated on without claiming, or with its jobs' outcomes never written), and
 * the executor ran the heartbeat no more (every lease lost while the worker lived).
 */
abstract class BackgroundLoopsContract extends ContractBase {
    record Work(String label) {
    }

    @Test
    void aClaimerThatMeetsAnErrorClaimsAgain() {
        AtomicBoolean armed = new AtomicBoolean();
        Skiplock worker = started(workerMeetingAnError("claim_jobs", armed)
                .handler("work", Work.class, context -> JobOutcome.complete()));
        armed.set(true);

        Job job = worker.enqueue(JobRequest.of("work", new Work("x")));

        assertThat(awaitStatus(worker, job.id(), JobStatus.SUCCEEDED).attempt()).isEqualTo(1);
        assertThat(armed).as("the claim met the error").isFalse();
    }

    @Test
    void aHeartbeatThatMeetsAnErrorKeepsTheLeasesAlive() throws Exception {
        AtomicBoolean armed = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch mayFinish = new CountDownLatch(1);
        Skiplock worker = started(workerMeetingAnError("heartbeat", armed)
                .handler("work", Work.class, context -> {
                    started.countDown();
                    awaitIgnoringInterrupts(mayFinish);
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("work", new Work("x")));
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        armed.set(true);
        await().atMost(WAIT).untilFalse(armed);
        Object leaseAfterTheError = leaseEnd(worker, job);
        // a later heartbeat extends the lease (before, the reaper cleared it once it ran out: null)
        await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> leaseEnd(worker, job),
                lease -> lease != null && !Objects.equals(lease, leaseAfterTheError));
        mayFinish.countDown();

        Job done = awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(worker.metrics().leasesLost()).isZero();
    }

    @Test
    void aCompleterThatMeetsAnErrorWritesTheOutcomeAgain() {
        AtomicBoolean armed = new AtomicBoolean();
        // a failure: complete_jobs on both databases (SQLite writes a plain success by complete_successes)
        Skiplock worker = started(workerMeetingAnError("complete_jobs", armed)
                .handler("work", Work.class, context -> JobOutcome.fail("the handler's failure")));
        armed.set(true);

        Job job = worker.enqueue(JobRequest.of("work", new Work("x")).withMaxAttempts(1));

        Job failed = awaitStatus(worker, job.id(), JobStatus.FAILED);
        assertThat(failed.lastError()).isEqualTo("the handler's failure");
        assertThat(armed).as("the completion met the error").isFalse();
    }

    /**
     * A worker of one slot on queue default whose connections throw an Error instead of preparing
     * {@code statement} (of jobs.sql) once the test set {@code armed}.
     */
    private Skiplock.Builder workerMeetingAnError(String statement, AtomicBoolean armed) {
        Skiplock client = client();
        String sql = SqlFile.load(FastPathContract.driver(client).resourceRoot() + "/sql/jobs.sql").get(statement).jdbcSql();
        DataSource meetingAnError = BeforeStatement.onceArmed(client.dataSource(), sql, armed, () -> {
            // any Error (an OutOfMemoryError would take down the test's JVM: surefire exits on one)
            throw new StackOverflowError("the test's error, thrown preparing " + statement);
        });
        return Skiplock.builder().dataSource(meetingAnError).config(fastConfig().queue("default", 1).build());
    }

    /** When the lease of {@code job} ends (null once the reaper cleared it). */
    private static Object leaseEnd(Skiplock worker, Job job) {
        List<Object> ends = Jdbc.query(worker.dataSource(),
                "SELECT locked_until FROM skiplock_jobs WHERE id = '" + job.id() + "'", row -> row.getObject(1));
        assertThat(ends).hasSize(1);
        return ends.get(0);
    }
}
