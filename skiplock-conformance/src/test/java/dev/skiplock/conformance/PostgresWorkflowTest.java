package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.ExecutionHook;
import dev.skiplock.Job;
import dev.skiplock.JobContext;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PostgresWorkflowTest extends WorkflowContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * The heartbeat runs while a handler's completion is written but not yet committed (forced: the
     * handler waits inside its transaction until another job's lease was extended). It must leave
     * that job's row alone: before, it waited on the row lock, so no lease of the worker was
     * extended until the commit, and the job was then counted as a lost lease.
     */
    @Test
    void theHeartbeatGoesOnWhileAHandlerCommitsItsOwnCompletion() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Skiplock client = client();
        Skiplock[] self = new Skiplock[1];
        java.util.UUID[] other = new java.util.UUID[1];
        self[0] = started(builder(config -> config.queue("default", 2))
                .handler("blocker", Flow.class, context -> {
                    release.await();
                    return JobOutcome.complete();
                })
                .handler("invoice", Flow.class, context -> {
                    context.inTransaction(connection -> {
                        context.completeInTransaction(connection, "paid");
                        java.time.Instant before = lockedUntil(client, other[0]);
                        org.awaitility.Awaitility.await().atMost(WAIT)
                                .until(() -> lockedUntil(client, other[0]).isAfter(before));
                        return null;
                    });
                    return JobOutcome.complete();
                }));
        other[0] = self[0].enqueue(JobRequest.of("blocker", new Flow("b"))).id();
        awaitStatus(self[0], other[0], JobStatus.RUNNING);

        Job done = self[0].awaitTerminal(self[0].enqueue(JobRequest.of("invoice", new Flow("i"))).id(), WAIT);
        release.countDown();

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("paid");
        assertThat(self[0].metrics().leasesLost()).isZero();
    }

    /**
     * The same while the handler's completion failed (its statement, once, after the handler's log
     * line was written in the transaction, which holds the job row's lock) and the handler caught
     * the failure and stays in its transaction: the execution counts as committing until the
     * transaction ends. Before, it ran again at once, and the heartbeat waited on that lock, so no
     * lease of the worker was extended until the transaction ended.
     */
    @Test
    void theHeartbeatGoesOnWhileAHandlerStaysInATransactionWhoseCompletionFailed() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Skiplock client = client();
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        String completeJobs = BeforeStatement.sql(client, "jobs", "complete_jobs");
        javax.sql.DataSource failingOnce = BeforeStatement.onceArmed(client.dataSource(), completeJobs, armed, () -> {
            throw new SQLException("the test's failure of complete_jobs", "XX000");
        });
        java.util.UUID[] other = new java.util.UUID[1];
        Skiplock worker = blockerAndInvoice(failingOnce, release, context -> {
            context.inTransaction(connection -> {
                context.log("stdout", "written in the transaction, before the completion");
                armed.set(true);
                try {
                    context.completeInTransaction(connection, "paid");
                } catch (RuntimeException failed) {
                    // stays in the transaction, whose log line holds the job row's lock
                }
                java.time.Instant before = lockedUntil(client, other[0]);
                org.awaitility.Awaitility.await().atMost(WAIT)
                        .until(() -> lockedUntil(client, other[0]).isAfter(before));
                return null;
            });
            return JobOutcome.complete("paid after all");
        });
        other[0] = worker.enqueue(JobRequest.of("blocker", new Flow("b"))).id();
        awaitStatus(worker, other[0], JobStatus.RUNNING);

        Job done = worker.awaitTerminal(worker.enqueue(JobRequest.of("invoice", new Flow("i"))).id(), WAIT);
        release.countDown();

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).isEqualTo("paid after all");
        assertThat(worker.metrics().leasesLost()).isZero();
    }

    /**
     * The heartbeat listed its jobs while a handler still ran, and the handler then completed its
     * job in its own transaction before the heartbeat's statement ran (forced: a pause before the
     * heartbeat's statement until the completion is written; the handler then waits inside its
     * transaction until another job's lease was extended). Before, the heartbeat, one statement for
     * every job of the worker, waited on the completed row's lock: no lease of the worker was
     * extended until the transaction ended, and another node's reaper could take the other jobs
     * from a live worker. Nor is the busy job counted as lost. (SQLite has one writer: a handler's
     * transaction holds every write back, the reapers' too.)
     */
    @Test
    void theHeartbeatGoesOnWhenAHandlerCompletesAfterTheHeartbeatListedItsJob() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch listed = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch completed = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        Skiplock client = client();
        String heartbeat = BeforeStatement.sql(client, "jobs", "heartbeat");
        javax.sql.DataSource pausing = BeforeStatement.onceArmed(client.dataSource(), heartbeat, armed, () -> {
            listed.countDown();
            if (!completed.await(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                throw new SQLException("the test's handler did not complete its job in time");
            }
        });
        java.util.UUID[] other = new java.util.UUID[1];
        Skiplock worker = blockerAndInvoice(pausing, release, context -> {
            context.inTransaction(connection -> {
                armed.set(true);
                if (!listed.await(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("no heartbeat listed the job in time");
                }
                context.completeInTransaction(connection, "paid");
                java.time.Instant before = lockedUntil(client, other[0]);
                completed.countDown();
                org.awaitility.Awaitility.await().atMost(WAIT)
                        .until(() -> lockedUntil(client, other[0]).isAfter(before));
                return null;
            });
            return JobOutcome.complete();
        });
        other[0] = worker.enqueue(JobRequest.of("blocker", new Flow("b"))).id();
        awaitStatus(worker, other[0], JobStatus.RUNNING);

        Job done = worker.awaitTerminal(worker.enqueue(JobRequest.of("invoice", new Flow("i"))).id(), WAIT);
        release.countDown();

        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(done.result().asText()).isEqualTo("paid");
        assertThat(worker.awaitTerminal(other[0], WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(worker.metrics().leasesLost()).isZero();
    }

    /**
     * A step event and a completion of the same job, forced to overlap: the completion has written
     * the terminal status (not yet committed) when the handler's step event is sent. The event's
     * statement waits for the completion's row lock (it takes FOR KEY SHARE), then finds the job no longer
     * running and writes nothing. Before it took the lock, it wrote its event at once, and the event
     * came after the job's terminal status in the stream. (SQLite has one writer: the two cannot overlap.)
     */
    @Test
    void aStepEventNeverLandsAfterTheJobsTerminalStatus() throws Exception {
        Skiplock skiplock = started(builder(config -> config.queue("default", 1)).handler("held", Flow.class, context -> {
            blockUntilInterrupted();
            return JobOutcome.complete();
        }));
        Job job = skiplock.enqueue(JobRequest.of("held", new Flow("h")));
        awaitStatus(skiplock, job.id(), JobStatus.RUNNING);
        java.util.UUID token = Jdbc.query(skiplock.dataSource(), "SELECT lease_token FROM skiplock_jobs WHERE id = '"
                + job.id() + "'", row -> java.util.UUID.fromString(row.getString(1))).getFirst();
        var attempt = new dev.skiplock.internal.store.HeldAttempt(job.id(), 1, token);
        dev.skiplock.spi.Driver driver = new dev.skiplock.postgres.PostgresDriver();
        var jobs = new dev.skiplock.internal.store.JobStore(skiplock.dataSource(), driver);
        var steps = new dev.skiplock.internal.store.StepStore(skiplock.dataSource(), driver);

        try (Connection completing = skiplock.dataSource().getConnection()) {
            completing.setAutoCommit(false);
            assertThat(jobs.completeJobs(completing, new dev.skiplock.internal.store.Completion(attempt,
                    JobStatus.SUCCEEDED, 0, null, null, 0))).isTrue();
            java.util.concurrent.CompletableFuture<Void> event = java.util.concurrent.CompletableFuture.runAsync(
                    () -> steps.appendStepEvent(attempt, "late", "failed", "sent while the job was completing"));
            org.awaitility.Awaitility.await().atMost(WAIT).until(() -> event.isDone() || stepEventWaitsOnALock(skiplock));
            completing.commit();
            event.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        }

        List<dev.skiplock.JobEvent> events = skiplock.events(job.id(), 0, 100);
        long terminal = events.stream().filter(dev.skiplock.JobEvent::isTerminal).mapToLong(dev.skiplock.JobEvent::seq)
                .findFirst().orElseThrow();
        assertThat(events).filteredOn(event -> event.seq() > terminal).isEmpty();
        assertThat(events).extracting(dev.skiplock.JobEvent::type).doesNotContain("step");
    }

    /**
     * A wait of no time whose checkpoint takes the job row while a delivery of its signal waits for
     * that row behind another share lock (the test's): the wait reads before the delivery commits
     * and returns nothing, and its replay must return nothing too. Before, the signal counted as
     * sent when its transaction began, before the wait ended, and the replay returned it.
     */
    @Test
    void aWaitOfNoTimeThatOvertookAWaitingDeliveryReturnsNothingOnReplayToo() throws Exception {
        Skiplock client = client();
        java.util.concurrent.CountDownLatch handlerReady = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch deliveryWaits = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch waitRecorded = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CompletableFuture<Void> delivered = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.atomic.AtomicInteger executions = new java.util.concurrent.atomic.AtomicInteger();
        Skiplock worker = started(builder(config -> config.queue("default", 2)).handler("approve", Flow.class, context -> {
            boolean first = executions.incrementAndGet() == 1;
            if (first) {
                handlerReady.countDown();
                deliveryWaits.await();
            }
            String answer = context.awaitSignal("approval", java.time.Duration.ZERO)
                    .map(com.fasterxml.jackson.databind.JsonNode::asText).orElse("none");
            String branch = context.step("branch", String.class, () -> answer);
            if (first) {
                waitRecorded.countDown();
                delivered.get(); // the delivery commits before the replay
            }
            context.sleep("pause", java.time.Duration.ofMillis(100)); // the attempt ends; the handler runs again
            return JobOutcome.complete(branch + " / " + answer);
        }));
        Job job = worker.enqueue(JobRequest.of("approve", new Flow("a")));
        assertThat(handlerReady.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        try (Connection holder = client.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (PreparedStatement share = holder.prepareStatement("SELECT 1 FROM skiplock_jobs WHERE id = ? FOR SHARE")) {
                share.setObject(1, job.id());
                share.executeQuery().close();
            }
            java.util.concurrent.CompletableFuture.runAsync(() -> client.signal(job.id(), "approval", "yes"))
                    .whenComplete((done, failure) -> {
                        if (failure != null) {
                            delivered.completeExceptionally(failure);
                        } else {
                            delivered.complete(null);
                        }
                    });
            org.awaitility.Awaitility.await().atMost(WAIT).until(() -> deliveryWaitsOnALock(client));
            deliveryWaits.countDown(); // the handler's wait now takes the row beside the test's share lock
            assertThat(waitRecorded.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            holder.rollback(); // the delivery goes on
        }
        delivered.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);

        Job done = worker.awaitTerminal(job.id(), WAIT);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.result().asText()).as("first execution / replay").isEqualTo("none / none");
    }

    /** Whether a delivery's lock_signal_target waits for a row lock (the heartbeat may wait too: not counted). */
    private static boolean deliveryWaitsOnALock(Skiplock client) {
        return Jdbc.query(client.dataSource(), "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                + " AND query LIKE 'SELECT status, attempt, queue FROM skiplock_jobs%'", row -> row.getLong(1)).getFirst() > 0;
    }

    private static boolean stepEventWaitsOnALock(Skiplock client) {
        return Jdbc.query(client.dataSource(), "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                + " AND query LIKE '%''step''%'", row -> row.getLong(1)).getFirst() > 0;
    }

    /**
     * A started worker on {@code pool} running kind {@code blocker} (until {@code release}) and kind
     * {@code invoice}, two at once, with a lease of 10 s: the invoice's own lease is not extended
     * while its transaction holds its row, and a slow machine must not let it lapse before the
     * test's transaction ends.
     */
    private Skiplock blockerAndInvoice(javax.sql.DataSource pool, java.util.concurrent.CountDownLatch release,
            dev.skiplock.JobHandler<Flow> invoice) {
        return started(Skiplock.builder().dataSource(pool)
                .config(fastConfig().leaseTtl(java.time.Duration.ofSeconds(10)).queue("default", 2).build())
                .handler("blocker", Flow.class, context -> {
                    release.await();
                    return JobOutcome.complete();
                })
                .handler("invoice", Flow.class, invoice));
    }

    private static java.time.Instant lockedUntil(Skiplock client, java.util.UUID id) {
        return Jdbc.query(client.dataSource(), "SELECT locked_until FROM skiplock_jobs WHERE id = '" + id + "'",
                row -> row.getTimestamp(1).toInstant()).getFirst();
    }

    private static Job report(dev.skiplock.JobClient tenant) throws InterruptedException {
        return tenant.awaitTerminal(tenant.enqueue(JobRequest.of("report", new Flow("r"))).id(), WAIT);
    }

    /**
     * Seed ADR-0001's execution hook: it sets the job's tenant for the transaction, and a row-level
     * security policy on a business table then shows the handler that tenant's rows only. (The
     * hook also takes an unprivileged role: a superuser, as tests connect, bypasses every policy.)
     */
    @Test
    void aRowLevelSecurityPolicySeesTheJobsTenantThroughTheExecutionHook() throws Exception {
        Skiplock client = client();
        String schema = Jdbc.query(client.dataSource(), "SELECT current_schema()", row -> row.getString(1)).getFirst();
        Jdbc.update(client.dataSource(), "DO $$ BEGIN CREATE ROLE skiplock_rls_app NOLOGIN;"
                + " EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$");
        Jdbc.update(client.dataSource(), "CREATE TABLE accounts (tenant text, name text)");
        Jdbc.update(client.dataSource(), "INSERT INTO accounts VALUES ('acme', 'a1'), ('acme', 'a2'), ('globex', 'g1')");
        Jdbc.update(client.dataSource(), "ALTER TABLE accounts ENABLE ROW LEVEL SECURITY");
        Jdbc.update(client.dataSource(), "CREATE POLICY by_tenant ON accounts"
                + " USING (tenant = current_setting('app.tenant_id', true))");
        Jdbc.update(client.dataSource(), "GRANT USAGE ON SCHEMA " + schema + " TO skiplock_rls_app");
        Jdbc.update(client.dataSource(), "GRANT SELECT ON accounts TO skiplock_rls_app");
        Skiplock skiplock = started(builder(config -> config.queue("default", 2))
                .executionHook(new ExecutionHook() {
                    @Override
                    public void beforeExecute(JobContext<?> context, Connection connection) throws SQLException {
                        connection.createStatement().execute("SET LOCAL ROLE skiplock_rls_app");
                        try (PreparedStatement set = connection.prepareStatement(
                                "SELECT set_config('app.tenant_id', ?, true)")) {
                            set.setString(1, context.job().tenant());
                            set.execute();
                        }
                    }
                })
                .handler("report", Flow.class, context -> JobOutcome.complete(context.inTransaction(connection -> {
                    List<String> names = new ArrayList<>();
                    try (var rows = connection.createStatement().executeQuery("SELECT name FROM accounts ORDER BY name")) {
                        while (rows.next()) {
                            names.add(rows.getString(1));
                        }
                    }
                    return names;
                }))));

        Job acme = report(skiplock.tenant("acme"));
        Job globex = report(skiplock.tenant("globex"));

        assertThat(acme.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(acme.result().toString()).isEqualTo("[\"a1\",\"a2\"]");
        assertThat(globex.result().toString()).isEqualTo("[\"g1\"]");
        assertThat(Jdbc.query(client.dataSource(), "SELECT count(*) FROM accounts", row -> row.getLong(1)))
                .containsExactly(3L); // outside the hook's transaction (as the superuser) every row is there
    }

    /**
     * A refused completion in the handler's transaction lets go of the job's row at once: the
     * completion's statement locked it (by its id, before its fence), and the new owner's
     * completion, a stop's outcome and a shutdown's release wait for that lock. Checked from
     * another connection while the stale handler is still inside its transaction, after the
     * refusal: the row is free. Before, it stayed locked until the handler's work returned.
     */
    @Test
    void aRefusedCompletionInTheHandlersTransactionLetsGoOfTheJobsRow() throws Exception {
        java.util.concurrent.CompletableFuture<String> rowWhileStillInside = new java.util.concurrent.CompletableFuture<>();
        Skiplock client = client();
        Skiplock skiplock = staleInvoicer(client, context -> {
            context.inTransaction(connection -> {
                try {
                    context.completeInTransaction(connection, "paid");
                } catch (dev.skiplock.JobStateException refused) {
                    rowWhileStillInside.complete(lockNowait(client, context.job().id()));
                }
                return null;
            });
            return JobOutcome.complete();
        });

        skiplock.enqueue(flow("invoice").withMaxAttempts(1));

        assertThat(rowWhileStillInside.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                .as("the job's row, from another connection").isEqualTo("free");
    }

    /** "free" if another connection can lock the job's row at once, else what PostgreSQL said. */
    private static String lockNowait(Skiplock client, java.util.UUID jobId) {
        try (Connection other = client.dataSource().getConnection();
                PreparedStatement lock = other.prepareStatement("SELECT id FROM skiplock_jobs WHERE id = ? FOR UPDATE NOWAIT")) {
            lock.setObject(1, jobId);
            lock.executeQuery().close();
            return "free";
        } catch (SQLException e) {
            return e.getMessage();
        }
    }
}
