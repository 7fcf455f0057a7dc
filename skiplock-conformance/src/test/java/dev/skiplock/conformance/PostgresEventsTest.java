package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.JobEvent;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PostgresEventsTest extends EventsContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * A follower misses no event of a running job whose log lines (the completer's thread) and
     * progress (the handler's) are written at once: the seq is drawn when a row is inserted, not when
     * it commits, so a progress event committed while an earlier-drawn log line still waited was read
     * first, and a follower reading after it never saw the line. Forced: the test's transaction holds
     * the place of the job's first log line (its unique index), so the completer's append_logs draws
     * its seq and waits; the handler then reports progress, and the follower reads. Before, the
     * progress event was read there and the log line was lost to the follower.
     */
    @Test
    void aFollowerMissesNoLineWrittenBesideTheHandlersProgress() throws Exception {
        CountDownLatch mayLog = new CountDownLatch(1);
        CountDownLatch mayProgress = new CountDownLatch(1);
        CountDownLatch progressed = new CountDownLatch(1);
        Skiplock client = client();
        Skiplock worker = started(builder(config -> config.queue("default", 1)).handler("narrate", Object.class, context -> {
            mayLog.await(WAIT.toSeconds(), TimeUnit.SECONDS);
            context.log("stdout", "first line");
            mayProgress.await(WAIT.toSeconds(), TimeUnit.SECONDS);
            context.progress(1);
            progressed.countDown();
            return JobOutcome.complete();
        }));
        UUID id = worker.enqueue(JobRequest.of("narrate", null)).id();
        awaitStatus(worker, id, JobStatus.RUNNING);

        List<JobEvent> followed = new ArrayList<>();
        try (Connection holder = client.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            Transactions.update(holder, "INSERT INTO skiplock_job_events (job_id, attempt, type, stream, message, line)"
                    + " VALUES (?, 1, 'log', 'stdout', 'the test holds this place', 0)", id);
            mayLog.countDown();
            Transactions.awaitBlocked(client.dataSource(), "jsonb_to_recordset", new CompletableFuture<Void>());
            mayProgress.countDown();
            await().atMost(WAIT).until(() -> progressed.getCount() == 0 || progressWaits(client));

            followed.addAll(worker.events(id, 0, 1000));
            holder.rollback();
        }
        assertThat(worker.awaitTerminal(id, WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);
        followed.addAll(worker.events(id, followed.isEmpty() ? 0 : followed.getLast().seq(), 1000));

        assertThat(followed).extracting(JobEvent::seq).containsExactlyElementsOf(
                worker.events(id, 0, 1000).stream().map(JobEvent::seq).toList());
        assertThat(followed).extracting(JobEvent::message).contains("first line");
    }

    /**
     * A handler completing its job in its own transaction (its log lines, then complete_jobs) and
     * another writer of the job's events (here a stale worker's append_logs, as the test plays it)
     * meet without a deadlock: every writer takes the job's event turn before it locks the row, so
     * the other writer waits for the turn holding nothing the completion's FOR UPDATE waits for.
     * Forced: the other writer starts once the transaction's lines are written and before its
     * complete_jobs. Before, the writer held the row FOR KEY SHARE while it waited for the turn, the
     * completion waited on it, and PostgreSQL ended one of them as a deadlock.
     */
    @Test
    void aCompletionInTheHandlersTransactionAndAnotherEventWriterDoNotDeadlock() throws Exception {
        Skiplock client = client();
        String appendLogs = BeforeStatement.sql(client, "events", "append_logs");
        CompletableFuture<Integer> stale = new CompletableFuture<>();

        dev.skiplock.Job done = completedInItsTransactionBeside(client, "jsonb_to_recordset",
                job -> staleLines(client, appendLogs, job), stale);

        assertThat(stale.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the stale writer's statement ended").isZero();
        assertThat(done.result().asText()).isEqualTo("paid");
        assertThat(client.events(done.id(), 0, 100)).extracting(JobEvent::message).contains("charged");
    }

    /**
     * The same with a checkpoint recorded by another thread of the handler (record_step, then its
     * step event, in one transaction) while the handler completes its job in its own transaction.
     * Before, record_step locked the row and then waited for the turn: a deadlock, found by the
     * third reader.
     */
    @Test
    void aCompletionInTheHandlersTransactionAndACheckpointOfAnotherThreadDoNotDeadlock() throws Exception {
        Skiplock client = client();
        dev.skiplock.internal.store.StepStore steps = new dev.skiplock.internal.store.StepStore(client.dataSource(),
                FastPathContract.driver(client));
        CompletableFuture<Object> checkpoint = new CompletableFuture<>();

        // record_step, or (before its turn came first) its step event: both name steps
        completedInItsTransactionBeside(client, "step", job -> {
            UUID token = Jdbc.query(client.dataSource(), "SELECT lease_token FROM skiplock_jobs WHERE id = '" + job + "'",
                    row -> (UUID) row.getObject(1)).getFirst();
            return steps.recordStep(new dev.skiplock.internal.store.HeldAttempt(job, 1, token), "audit",
                    dev.skiplock.internal.store.StepStore.Kind.STEP, "1", null, "succeeded");
        }, checkpoint);

        assertThat(checkpoint.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the checkpoint's transaction ended").isNotNull();
    }

    /**
     * Runs a job whose handler completes it in its own transaction ("paid", after logging "charged")
     * and, once the transaction's lines are written and before its complete_jobs, starts {@code
     * otherWriter} on the job (its answer goes to {@code written}) and waits until a statement whose
     * text contains {@code waitsIn} waits for a lock, or the writer ended. Returns the job, succeeded.
     */
    private <T> dev.skiplock.Job completedInItsTransactionBeside(Skiplock client, String waitsIn,
            java.util.function.Function<UUID, T> otherWriter, CompletableFuture<T> written) throws Exception {
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<UUID> job = new java.util.concurrent.atomic.AtomicReference<>();
        javax.sql.DataSource pool = BeforeStatement.onceArmed(client.dataSource(),
                BeforeStatement.sql(client, "jobs", "complete_jobs"), armed, () -> {
                    Thread.ofVirtual().start(() -> {
                        try {
                            written.complete(otherWriter.apply(job.get()));
                        } catch (RuntimeException e) {
                            written.completeExceptionally(e);
                        }
                    });
                    Transactions.awaitBlocked(client.dataSource(), waitsIn, written);
                });
        Skiplock worker = started(Skiplock.builder().dataSource(pool).config(fastConfig().queue("default", 1).build())
                .handler("invoice", Object.class, context -> {
                    context.inTransaction(connection -> {
                        context.log("stdout", "charged");
                        context.completeInTransaction(connection, "paid");
                        return null;
                    });
                    return JobOutcome.complete();
                }));
        armed.set(true);
        job.set(worker.enqueue(JobRequest.of("invoice", null)).id());
        dev.skiplock.Job done = worker.awaitTerminal(job.get(), WAIT);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        return done;
    }

    /** append_logs of a line of {@code job} under a lease token it does not hold (a stale worker's): writes nothing. */
    private static int staleLines(Skiplock client, String appendLogs, UUID job) {
        try (Connection connection = client.dataSource().getConnection();
                java.sql.PreparedStatement statement = connection.prepareStatement(appendLogs)) {
            statement.setString(1, "[{\"job_id\": \"" + job + "\", \"token\": \"" + UUID.randomUUID()
                    + "\", \"attempt\": 1, \"stream\": \"stdout\", \"line\": 7, \"message\": \"stale\"}]");
            try (java.sql.ResultSet notified = statement.executeQuery()) {
                notified.next();
                return notified.getInt(1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** Whether the handler's progress statement waits for a lock (once no writer of the job's events may go before another). */
    private static boolean progressWaits(Skiplock client) {
        return Jdbc.query(client.dataSource(), "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                + " AND strpos(query, 'progress') > 0 AND strpos(query, 'UPDATE skiplock_jobs') > 0",
                row -> row.getLong(1)).getFirst() > 0;
    }
}
