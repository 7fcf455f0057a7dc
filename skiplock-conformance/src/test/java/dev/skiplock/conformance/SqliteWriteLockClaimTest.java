package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobHandler;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.JobStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * SQLite writes one transaction at a time: a claim that waits for the write lock counts its free
 * slots once it holds the lock, so the slots freed while it waited go into the same statement
 * (SQLite pays a commit per statement whatever its size; a claimer that counted before waiting took
 * about half of what it could in a drain). The claim holds the lock for its update only: the
 * claimed jobs' rows are read after its commit ({@code read_claimed_jobs}), and what may happen in
 * between is forced here by an action of the test run just before that read.
 */
class SqliteWriteLockClaimTest extends ContractBase {
    record Numbered(int number) {
    }

    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    @Test
    void aClaimThatWaitedForTheWriteLockTakesTheSlotsFreedMeanwhileInOneStatement() throws Exception {
        int concurrency = 3;
        CountDownLatch[] holds = {new CountDownLatch(1), new CountDownLatch(1), new CountDownLatch(1)};
        CountDownLatch allHeld = new CountDownLatch(concurrency);
        Map<Integer, Thread> holders = new ConcurrentHashMap<>();
        // No poll or reaper comes round within the test, so no adoption runs before the claim: the
        // round's one statement waiting for the lock is the claim (awaitClaimWaitingForTheWriteLock).
        // The heartbeat may wait for the lock too; it writes no job's status.
        Duration never = Duration.ofHours(1);
        started(builder(config -> config.queue("default", concurrency).pollInterval(never).reaperInterval(never))
                .handler("hold", Numbered.class, context -> {
                    holders.put(context.args().number(), Thread.currentThread());
                    allHeld.countDown();
                    holds[context.args().number()].await();
                    return JobOutcome.complete();
                })
                .handler("quick", Numbered.class, context -> JobOutcome.complete()));
        Skiplock client = client();
        for (int i = 0; i < concurrency; i++) {
            client.enqueue(JobRequest.of("hold", new Numbered(i)));
        }
        assertThat(allHeld.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).as("all slots held").isTrue();
        List<UUID> quick = Arrays.stream(new int[concurrency])
                .mapToObj(i -> client.enqueue(JobRequest.of("quick", new Numbered(i))).id()).toList();

        try (Connection writer = DriverManager.getConnection(database.url() + "?busy_timeout=30000");
                Statement statement = writer.createStatement()) {
            statement.execute("BEGIN IMMEDIATE"); // the write lock: every writer of the worker now waits
            holds[0].countDown();
            awaitEnd(holders.get(0)); // its slot is free: the claimer wakes and waits for the lock with it
            awaitClaimWaitingForTheWriteLock("skiplock-claim-default");
            holds[1].countDown();
            holds[2].countDown();
            awaitEnd(holders.get(1)); // two more slots free while the claim waits
            awaitEnd(holders.get(2));
            statement.execute("COMMIT");
        }

        quick.forEach(id -> awaitStatus(client, id, JobStatus.SUCCEEDED));
        List<String> claimTokens = Jdbc.query(client.dataSource(),
                "SELECT DISTINCT claim_token FROM skiplock_jobs WHERE kind = 'quick'", row -> row.getString(1));
        assertThat(claimTokens).as("one claim statement took the three quick jobs").hasSize(1);
    }

    /**
     * Another writer takes the write lock at once (no busy wait) between the claim's commit and the
     * read of its jobs.
     */
    @Test
    void anotherWriterTakesTheWriteLockBeforeTheClaimedJobsAreRead() {
        Skiplock client = client();
        Job job = client.enqueue(JobRequest.of("quick", new Numbered(0)));
        AtomicBoolean wrote = new AtomicBoolean();
        JobStore store = new JobStore(BeforeStatement.dataSource(client.dataSource(), claimedJobsRead(client), () -> {
            // busy_timeout 0: SQLITE_BUSY at once, failing the read, if anyone holds the lock
            try (Connection writer = DriverManager.getConnection(database.url() + "?busy_timeout=0");
                    Statement statement = writer.createStatement()) {
                statement.execute("BEGIN IMMEDIATE");
                statement.execute("COMMIT");
                wrote.set(true);
            }
        }), DependencyRaceContract.driver(client));

        List<Claimed> claimed = store.claimJobs(claimParams(), 10);

        assertThat(wrote).as("a writer took the lock between the claim's commit and the read of its jobs").isTrue();
        assertThat(claimed).extracting(held -> held.job().id()).containsExactly(job.id());
        assertThat(claimed.getFirst().job().status()).isEqualTo(JobStatus.RUNNING);
    }

    /**
     * A job whose lease changed hands between the claim's commit and the read of its row (a reaper
     * and another worker's adoption, here as one update) is not read, so its claimer does not run
     * it beside the worker that holds it now; the claim's other jobs are read as claimed.
     */
    @Test
    void aJobWhoseLeaseChangedHandsBeforeItsRowWasReadIsNotRunByItsClaimer() {
        Skiplock client = client();
        Job taken = client.enqueue(JobRequest.of("quick", new Numbered(0)));
        Job kept = client.enqueue(JobRequest.of("quick", new Numbered(1)));
        JobStore store = new JobStore(BeforeStatement.dataSource(client.dataSource(), claimedJobsRead(client),
                () -> database.stealLease(client.dataSource(), taken.id(), "adopter")),
                DependencyRaceContract.driver(client));

        List<Claimed> claimed = store.claimJobs(claimParams(), 10);

        assertThat(claimed).extracting(held -> held.job().id()).containsExactly(kept.id());
        Job now = client.get(taken.id()).orElseThrow();
        assertThat(now.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(now.lockedBy()).isEqualTo("adopter");
    }

    /**
     * A claim whose jobs' rows could not be read after its commit fails as a claim whose answer was
     * lost does: its jobs are given back at once without using their attempt, and run from the
     * next claim (not adopted once their lease ran out).
     */
    @Test
    void aClaimWhoseJobsCouldNotBeReadGivesThemBackWithoutUsingTheirAttempts() {
        Skiplock client = client();
        AtomicBoolean armed = new AtomicBoolean();
        Skiplock worker = workerOfOneSlot(client, armed, () -> {
            throw new SQLException("the read of the claimed jobs failed (the test's)");
        }, context -> JobOutcome.complete(context.attempt()));
        Job job = client.enqueue(JobRequest.of("quick", new Numbered(0)).withMaxAttempts(1));

        Job done = awaitTerminal(client, job.id());
        assertThat(armed).as("one read of a claim's jobs failed").isFalse();
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(done.result().asInt()).isEqualTo(1);
        assertThat(client.events(job.id(), 0, 100).stream().filter(event -> event.type().equals("status"))
                .map(event -> event.status() + "@" + event.attempt()))
                .containsExactly("queued@0", "running@1", "queued@0", "running@1", "succeeded@1");
        assertThat(worker.metrics().adopted()).isZero();
    }

    /**
     * A worker of one slot whose claimed job is not read (its lease taken meanwhile, here for an
     * hour) gets its slot back: the next job runs.
     */
    @Test
    void aJobNotReadAfterItsClaimLeavesItsSlotToTheNextJob() {
        Skiplock client = client();
        AtomicBoolean armed = new AtomicBoolean();
        workerOfOneSlot(client, armed, () -> Jdbc.update(client.dataSource(),
                "UPDATE skiplock_jobs SET locked_by = 'adopter', lease_token = ?,"
                        + " locked_until = CAST(unixepoch('subsec') * 1000 AS INTEGER) + 3600000"
                        + " WHERE kind = 'quick' AND status = 'running'", UUID.randomUUID().toString()),
                context -> JobOutcome.complete());
        Job taken = client.enqueue(JobRequest.of("quick", new Numbered(0)));
        awaitCount(() -> armed.get() ? 0 : 1, 1); // the lease is taken before the read (its slot stays held till then)

        Job next = client.enqueue(JobRequest.of("quick", new Numbered(1)));

        assertThat(awaitTerminal(client, next.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
        Job stillTaken = client.get(taken.id()).orElseThrow();
        assertThat(stillTaken.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(stillTaken.lockedBy()).isEqualTo("adopter");
    }

    /**
     * A cancel requested between the claim's commit and the read of the job's row (the job is
     * running: the cancel is a request) ends the job cancelled before its handler runs.
     */
    @Test
    void aJobWhoseCancelWasRequestedBeforeItsRowWasReadEndsCancelledWithoutRunning() {
        Skiplock client = client();
        AtomicBoolean armed = new AtomicBoolean();
        AtomicBoolean ran = new AtomicBoolean();
        workerOfOneSlot(client, armed, () -> Jdbc.query(client.dataSource(),
                "SELECT id FROM skiplock_jobs WHERE kind = 'quick' AND status = 'running'",
                row -> UUID.fromString(row.getString(1))).forEach(client::cancel), context -> {
                    ran.set(true);
                    return JobOutcome.complete();
                });
        Job job = client.enqueue(JobRequest.of("quick", new Numbered(0)));

        Job done = awaitTerminal(client, job.id());
        assertThat(armed).as("the cancel ran before the read").isFalse();
        assertThat(done.status()).isEqualTo(JobStatus.CANCELLED);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(done.lastError()).isEqualTo("cancelled before its handler started");
        assertThat(ran).as("the handler ran").isFalse();
    }

    /**
     * A started worker of one slot on {@code client}'s pool, running {@code handler} for kind
     * {@code quick}, whose pool runs {@code beforeRead} once before the next read of a claim's jobs
     * after the test's {@code armed} is set, which this sets once the worker started (its warm-up
     * reads its own claim's jobs in a transaction it rolls back).
     */
    private Skiplock workerOfOneSlot(Skiplock client, AtomicBoolean armed, BeforeStatement.Action beforeRead,
            JobHandler<Numbered> handler) {
        DataSource pool = BeforeStatement.onceArmed(client.dataSource(), claimedJobsRead(client), armed, beforeRead);
        Skiplock worker = started(Skiplock.builder().dataSource(pool).config(fastConfig().queue("default", 1).build())
                .handler("quick", Numbered.class, handler));
        armed.set(true);
        return worker;
    }

    /** The read of the claimed jobs' rows, as the store prepares it. */
    private static String claimedJobsRead(Skiplock client) {
        return SqlFile.load(DependencyRaceContract.driver(client).resourceRoot() + "/sql/jobs.sql")
                .get("read_claimed_jobs").jdbcSql();
    }

    private static ClaimParams claimParams() {
        return new ClaimParams("default", "worker-1", "host-1", UUID.randomUUID(), 60_000, "[]");
    }

    /** Waits until {@code holder}'s handler thread has ended, or fails: the test holds the write lock meanwhile. */
    private static void awaitEnd(Thread holder) throws InterruptedException {
        holder.join(WAIT);
        assertThat(holder.isAlive()).as(holder.getName() + " ended").isFalse();
    }

    /** Waits until the named claimer's claim waits for SQLite's write lock (in Skiplock's busy handler). */
    private static void awaitClaimWaitingForTheWriteLock(String threadName) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> Thread.getAllStackTraces().entrySet().stream()
                .filter(entry -> entry.getKey().getName().equals(threadName))
                .map(entry -> List.of(entry.getValue()))
                .anyMatch(stack -> stack.stream().anyMatch(frame -> frame.getClassName().endsWith("PromptBusyHandler"))
                        && stack.stream().anyMatch(frame -> frame.getMethodName().equals("claimJobs"))));
    }
}
