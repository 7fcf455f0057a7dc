package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.store.ClaimFloor;
import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.JobStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PostgresClaimFloorTest extends ClaimFloorContract {
    private static final int CLAIMED_BEFORE = 20_000;

    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    /**
     * A REPEATABLE READ transaction held open (a long analytics query) keeps the index entry of
     * every job claimed since from vacuum. The claim from the floor reads a few pages of
     * skiplock_jobs_claimable; the same statement from the start of the queue, as every claim ran
     * before the floor, reads past all 20,000 jobs claimed before it. Pages, not time: the count
     * does not depend on the machine.
     */
    @Test
    void underAHeldSnapshotAClaimFromTheFloorReadsNoJobClaimedBeforeIt() throws Exception {
        Skiplock producer = client();
        JobStore store = FastPathContract.store(producer);
        try (Connection snapshot = DriverManager.getConnection(database.url());
                Connection claimer = DriverManager.getConnection(database.url())) {
            snapshot.setAutoCommit(false);
            snapshot.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement statement = snapshot.createStatement()) {
                statement.executeQuery("SELECT count(*) FROM skiplock_jobs").close();
            }

            // One millisecond apart, an hour ago: the floor's lag covers a hundred of them.
            Instant hourAgo = Instant.now().minus(Duration.ofHours(1));
            List<JobRequest> requests = new ArrayList<>();
            for (int i = 0; i < CLAIMED_BEFORE; i++) {
                requests.add(JobRequest.of("work", new Work("old-" + i)).withRunAt(hourAgo.plusMillis(i)));
            }
            for (int from = 0; from < CLAIMED_BEFORE; from += 10_000) {
                producer.enqueueMany(requests.subList(from, from + 10_000));
            }
            ClaimFloor floor = null;
            int claimed = 0;
            for (int round = 0; round < 40 && claimed < CLAIMED_BEFORE; round++) {
                for (Claimed job : store.claimJobs(claim(), floor, 1_000)) {
                    floor = floor == null ? ClaimFloor.of(job.job()) : floor.later(ClaimFloor.of(job.job()));
                    claimed++;
                }
            }
            assertThat(claimed).isEqualTo(CLAIMED_BEFORE);
            producer.enqueue(JobRequest.of("work", new Work("new")));

            NamedStatement claimJobs = PostgresClaimCall.statement(producer);
            long fromTheFloor = claimableIndexPages(claimer, claimJobs, floor);
            long fromTheStart = claimableIndexPages(claimer, claimJobs, null);

            // Measured: 146 pages from the start, 9 from the floor (a descent of the index for each
            // part of the claim: other priorities, recent, at the floor).
            assertThat(fromTheStart).as("from the start: past every claimed job (from the floor: %d)", fromTheFloor)
                    .isGreaterThan(100);
            assertThat(fromTheFloor).as("from the floor (from the start: %d)", fromTheStart).isLessThan(fromTheStart / 5);
            snapshot.rollback();
        }
    }

    /**
     * Two connections, forced order: a job enqueued in an application's transaction (its
     * available_at is that transaction's start) commits only after the database clock passed the
     * floor's lag and the worker claimed a job enqueued later; it lies behind the floor, and only the
     * look-behind after the short claim its commit rang can find it (the poll interval is ten
     * minutes). SQLite has no such case: an open write transaction there keeps every other writer out.
     */
    @Test
    void anEnqueueCommittedLongAfterItsTransactionBeganIsClaimedByTheLookBehind() throws Exception {
        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        Skiplock worker = started(builder(config -> config.queue("default", 1).pollInterval(Duration.ofMinutes(10)))
                .handler("work", Work.class, context -> {
                    ran.add(context.args().label());
                    return dev.skiplock.JobOutcome.complete();
                }));
        try (Connection application = worker.dataSource().getConnection()) {
            application.setAutoCommit(false);
            dev.skiplock.Job late = worker.enqueue(application, JobRequest.of("work", new Work("late")));
            Instant pastTheLag = late.availableAt().plus(ClaimFloor.LAG).plusMillis(50);
            org.awaitility.Awaitility.await().atMost(WAIT).until(() -> Jdbc.query(worker.dataSource(), "SELECT now()",
                    row -> row.getObject(1, java.time.OffsetDateTime.class).toInstant()).getFirst().isAfter(pastTheLag));
            dev.skiplock.Job after = worker.enqueue(JobRequest.of("work", new Work("after")));
            awaitStatus(worker, after.id(), dev.skiplock.JobStatus.SUCCEEDED);

            application.commit();

            awaitStatus(worker, late.id(), dev.skiplock.JobStatus.SUCCEEDED);
        }
        assertThat(ran).containsExactly("after", "late");
    }

    /**
     * Two connections, forced order: a claim holds its jobs uncommitted (the first claimer's
     * transaction, paused between its claim and its commit) while a second claims. The second skips
     * the held jobs in every priority and takes the next ones in claim order, across priorities,
     * without waiting for the first (a lock_timeout turns a wait into a failure); the first holds
     * locks on its four jobs only. The parts above and below the floor lock in a subquery per
     * priority since migration 0019.
     */
    @Test
    void aClaimSkipsTheJobsAnotherClaimHoldsInEveryPriority() throws Exception {
        Skiplock producer = client();
        Instant now = Instant.now();
        List<JobRequest> requests = new ArrayList<>();
        for (int priority : new int[] {10, 0, -5}) {
            for (int step = 3; step >= 1; step--) {
                requests.add(JobRequest.of("work", new Work("due")).withPriority(priority)
                        .withRunAt(now.minus(Duration.ofMinutes(step))));
                requests.add(JobRequest.of("work", new Work("delayed")).withPriority(priority)
                        .withRunAt(now.plus(Duration.ofDays(step))));
            }
        }
        List<String> due = producer.enqueueMany(requests).stream().filter(job -> job.availableAt().isBefore(now))
                .map(job -> job.id().toString()).toList(); // in claim order: priority, then oldest first
        NamedStatement claimJobs = PostgresClaimCall.statement(producer);
        try (Connection first = DriverManager.getConnection(database.url());
                Connection second = DriverManager.getConnection(database.url())) {
            first.setAutoCommit(false);
            try (Statement statement = second.createStatement()) {
                statement.execute("SET lock_timeout = '5s'");
            }
            assertThat(PostgresClaimCall.claimIds(first, claimJobs, null, 4)).as("the first claim, held").isEqualTo(due.subList(0, 4));

            assertThat(PostgresClaimCall.claimIds(second, claimJobs, null, 4)).as("the second claim, while the first is held")
                    .isEqualTo(due.subList(4, 8));
            try (Statement statement = second.createStatement();
                    ResultSet row = statement.executeQuery("SELECT count(*) FROM (SELECT 1 FROM skiplock_jobs"
                            + " WHERE status = 'queued' FOR UPDATE SKIP LOCKED) AS free")) {
                row.next();
                assertThat(row.getLong(1)).as("queued jobs no claim holds").isEqualTo(requests.size() - 8);
            }
            first.rollback();
        }
    }

    private static ClaimParams claim() {
        return new ClaimParams("default", "worker-1", "host-1", UUID.randomUUID(), 60_000, "[]");
    }

    /**
     * Runs claim_jobs from {@code floor} (null: from the start) in a transaction rolled back, and
     * returns the pages of skiplock_jobs_claimable it read (hit or read): the transaction's block
     * count of that index after the claim less the one before (PostgreSQL 15 adds counts of earlier
     * transactions it has not reported yet).
     */
    private static long claimableIndexPages(Connection connection, NamedStatement claim, ClaimFloor floor)
            throws Exception {
        connection.setAutoCommit(false);
        try {
            long before = PostgresClaimCall.claimIndexPages(connection);
            try (PreparedStatement statement = PostgresClaimCall.prepare(connection, claim, floor, 10)) {
                statement.executeQuery().close();
            }
            return PostgresClaimCall.claimIndexPages(connection) - before;
        } finally {
            connection.rollback();
            connection.setAutoCommit(true);
        }
    }

}
