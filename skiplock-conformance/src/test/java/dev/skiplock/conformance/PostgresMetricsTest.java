package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.JobRequest;
import dev.skiplock.QueueActivity;
import dev.skiplock.QueueCount;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.postgres.PostgresDriver;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL appends deltas of the counts and of the finishes per minute and folds them
 * (compact_job_counts, compact_job_throughput): a fold races the transactions that append, and
 * other nodes' folds. Both interleavings are forced here, for each.
 */
class PostgresMetricsTest extends MetricsContract {
    /** A delta of finishes of tenant and queue default in the current minute, {@code finished} its one parameter. */
    private static final String THIS_MINUTES_DELTA = "INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)"
            + " VALUES ('default', 'default', date_trunc('minute', now()), ?)";

    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    private JobStore jobs(Skiplock skiplock) {
        return new JobStore(skiplock.dataSource(), new PostgresDriver());
    }

    /** A fold that runs while an enqueue's delta is uncommitted leaves it for the next fold: none lost, none twice. */
    @Test
    void aFoldDuringAnOpenEnqueueNeitherLosesNorDoublesItsDelta() throws Exception {
        Skiplock skiplock = client();
        for (int i = 0; i < 3; i++) {
            skiplock.enqueue(JobRequest.of("ok", new Work("committed" + i)));
        }
        try (Connection open = skiplock.dataSource().getConnection()) {
            open.setAutoCommit(false);
            skiplock.enqueue(open, JobRequest.of("ok", new Work("open")));
            jobs(skiplock).compactJobCounts(Duration.ofSeconds(15));
            assertThat(counted(skiplock)).containsEntry("default/queued", 3L);
            open.commit();
        }
        assertThat(counted(skiplock)).isEqualTo(countedOverTheJobs(skiplock)).containsEntry("default/queued", 4L);
        assertExactAfterAFold(skiplock, 1);
    }

    /**
     * The job list's reads by the filters' indexes (list_jobs, list_jobs_all_tenants) are planned
     * for each call's filters (their statements stay unnamed), so PostgreSQL never settles on one
     * generic plan that walks the whole history (measured: 1 to 3 s a page over 10 million finished
     * jobs); other statements, the newest jobs' read first among them (one plan whatever the
     * values), are server-prepared after five uses, which this test sees too, so it can tell the
     * two apart. One queued job does not fill a page, so each call runs both statements.
     */
    @Test
    void theJobListIsPlannedForEachCallWhileOtherStatementsArePrepared() throws Exception {
        Skiplock skiplock = client();
        skiplock.enqueue(JobRequest.of("ok", new Work("a")));
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(database.url());
        config.setMaximumPoolSize(1); // one backend: its prepared statements are the ones counted
        try (com.zaxxer.hikari.HikariDataSource one = new com.zaxxer.hikari.HikariDataSource(config)) {
            JobStore jobs = new JobStore(one, new PostgresDriver());
            for (int i = 0; i < 10; i++) {
                jobs.listJobs("default", dev.skiplock.JobQuery.all().withStatus(dev.skiplock.JobStatus.QUEUED));
                jobs.listJobsAllTenants(dev.skiplock.JobQuery.all().withStatus(dev.skiplock.JobStatus.QUEUED));
                jobs.countJobs("default");
            }
            List<String> prepared = Jdbc.query(one, "SELECT statement FROM pg_prepared_statements",
                    row -> row.getString(1));
            assertThat(prepared).anyMatch(text -> text.contains("skiplock_job_counts"));
            assertThat(prepared).as("the newest jobs' read, of a tenant and of every tenant")
                    .filteredOn(text -> text.contains("LEAST(10 *")).hasSize(2);
            assertThat(prepared).as("the reads by the filters' indexes").noneMatch(text -> text.contains("live_ids"));
        }
    }

    /**
     * Two nodes fold at once: the second, finding the first's transaction open, skips its turn at
     * once (advisory lock) instead of waiting on the rows the first deleted; the counts stay right.
     */
    @Test
    void aSecondFoldSkipsItsTurnWhileAnotherIsOpen() throws Exception {
        Skiplock skiplock = client();
        for (int i = 0; i < 5; i++) {
            skiplock.enqueue(JobRequest.of("ok", new Work("job" + i)));
        }
        try (Connection first = skiplock.dataSource().getConnection()) {
            first.setAutoCommit(false);
            assertThat(Transactions.update(first, countsFold())).isEqualTo(1);
            CompletableFuture<Void> second = CompletableFuture.runAsync(
                    () -> jobs(skiplock).compactJobCounts(Duration.ofSeconds(15)));
            Transactions.awaitBlocked(skiplock.dataSource(), "skiplock_job_counts", second);
            assertThat(second).as("the second fold waited for the first").isDone();
            second.get();
            first.commit();
        }
        assertThat(counted(skiplock)).isEqualTo(countedOverTheJobs(skiplock)).containsEntry("default/queued", 5L);
        assertThat(countedAllTenants(skiplock)).isEqualTo(countedOverTheJobs(skiplock));
        assertThat(foldedRows(skiplock)).isEqualTo(1);
    }

    /**
     * A count read while a fold is open (the deltas deleted and added to their group's folded sum,
     * uncommitted) sees each job once: the read takes the sums and the deltas in one snapshot. An
     * enqueue meanwhile appends a delta without waiting on the fold, and the next fold takes it.
     */
    @Test
    void aCountDuringAnOpenFoldSeesEachJobOnce() throws Exception {
        Skiplock skiplock = client();
        for (int i = 0; i < 3; i++) {
            skiplock.enqueue(JobRequest.of("ok", new Work("folded" + i)));
        }
        jobs(skiplock).compactJobCounts(Duration.ofSeconds(15));
        for (int i = 0; i < 2; i++) {
            skiplock.enqueue(JobRequest.of("ok", new Work("appended" + i)));
        }
        try (Connection open = skiplock.dataSource().getConnection()) {
            open.setAutoCommit(false);
            assertThat(Transactions.update(open, countsFold())).as("groups the open fold added to").isEqualTo(1);
            assertThat(counted(skiplock)).containsEntry("default/queued", 5L);
            assertThat(skiplock.countAllTenants()).singleElement().extracting(QueueCount::jobs).isEqualTo(5L);
            CompletableFuture.runAsync(() -> skiplock.enqueue(JobRequest.of("ok", new Work("during"))))
                    .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(counted(skiplock)).containsEntry("default/queued", 6L);
            open.commit();
        }
        assertThat(counted(skiplock)).isEqualTo(countedOverTheJobs(skiplock)).containsEntry("default/queued", 6L);
        assertExactAfterAFold(skiplock, 1);
    }

    /**
     * Migration 0022 moves the counts' rows, folded or not, into one sum per group, and leaves no
     * delta: the counts read the same before and after. Replayed here on a migrated schema whose
     * folded sums are put back among the deltas, as they were before 0022.
     */
    @Test
    void migration0022SumsEveryGroupsRowsIntoItsFoldedRow() throws Exception {
        Skiplock skiplock = client();
        for (int i = 0; i < 4; i++) {
            skiplock.enqueue(JobRequest.of("ok", new Work("folded" + i)).withQueue(i % 2 == 0 ? "even" : "odd"));
        }
        jobs(skiplock).compactJobCounts(Duration.ofSeconds(15));
        for (int i = 0; i < 3; i++) {
            skiplock.tenant("north").enqueue(JobRequest.of("ok", new Work("appended" + i)));
        }
        skiplock.cancel(skiplock.enqueue(JobRequest.of("ok", new Work("cancelled")).withQueue("even")).id());
        Map<String, Long> before = counted(skiplock);
        undoMigration0023(skiplock);
        Jdbc.update(skiplock.dataSource(), "INSERT INTO skiplock_job_counts SELECT * FROM skiplock_job_counts_folded");
        Jdbc.update(skiplock.dataSource(), "DROP TABLE skiplock_job_counts_folded");
        migrate(skiplock, "0022_job_counts_folded_apart");
        migrate(skiplock, "0023_job_counts_all_tenants");

        assertThat(counted(skiplock)).isEqualTo(before)
                .containsEntry("even/queued", 2L).containsEntry("even/cancelled", 1L);
        assertThat(countedAllTenants(skiplock)).isEqualTo(countedOverTheJobs(skiplock));
        assertThat(skiplock.tenant("north").count()).singleElement().extracting(QueueCount::jobs).isEqualTo(3L);
        assertThat(Jdbc.query(skiplock.dataSource(), "SELECT count(*) FROM skiplock_job_counts", row -> row.getLong(1)))
                .as("deltas left").containsExactly(0L);
        assertThat(foldedRows(skiplock)).as("a row per group").isEqualTo(4);
    }

    /**
     * Migration 0023 totals every tenant's folded sums per queue and status; the deltas not folded
     * yet stay where they are, and every tenant's count reads the same before and after (replayed
     * here on a migrated schema whose totals are dropped, as they were before 0023).
     */
    @Test
    void migration0023TotalsEveryTenantsFoldedSums() throws Exception {
        Skiplock skiplock = client();
        for (int i = 0; i < 4; i++) {
            skiplock.tenant(i % 2 == 0 ? "north" : "south").enqueue(JobRequest.of("ok", new Work("folded" + i)));
        }
        skiplock.cancel(skiplock.enqueue(JobRequest.of("ok", new Work("cancelled")).withQueue("other")).id());
        jobs(skiplock).compactJobCounts(Duration.ofSeconds(15));
        skiplock.tenant("north").enqueue(JobRequest.of("ok", new Work("appended")));
        Map<String, Long> before = countedAllTenants(skiplock);
        undoMigration0023(skiplock);

        migrate(skiplock, "0023_job_counts_all_tenants");

        assertThat(countedAllTenants(skiplock)).isEqualTo(before).isEqualTo(countedOverTheJobs(skiplock))
                .containsEntry("default/queued", 5L).containsEntry("other/cancelled", 1L);
        assertThat(unfoldedDeltas(skiplock)).as("the appended job's delta, left for the fold").isEqualTo(1);
        assertThat(Jdbc.query(skiplock.dataSource(), "SELECT queue || '/' || status || '=' || jobs"
                + " FROM skiplock_job_counts_all_tenants ORDER BY queue, status", row -> row.getString(1)))
                .as("a row per queue and status of the folded sums")
                .containsExactly("default/queued=4", "other/cancelled=1");
        jobs(skiplock).compactJobCounts(Duration.ofSeconds(15));
        assertThat(countedAllTenants(skiplock)).isEqualTo(countedOverTheJobs(skiplock));
        assertThat(unfoldedDeltas(skiplock)).isZero();
    }

    /**
     * Migration 0023 copies the folded sums once its lock is free of a fold (here a fold of a
     * process of 0022's version, open when the migration starts); it must copy them with that
     * fold's sums, also where the server's or the pool's default level is REPEATABLE READ, whose
     * one snapshot, taken before the fold committed, would copy them without (the migrator runs in
     * READ COMMITTED). Forced: the migration waits on the open fold's lock, then the fold commits.
     */
    @Test
    void migration0023CopiesAFoldThatCommittedWhileItWaitedAlsoUnderRepeatableRead() throws Exception {
        Skiplock skiplock = client();
        for (int i = 0; i < 3; i++) {
            skiplock.enqueue(JobRequest.of("ok", new Work("folded" + i)));
        }
        jobs(skiplock).compactJobCounts(Duration.ofSeconds(15));
        for (int i = 0; i < 2; i++) {
            skiplock.enqueue(JobRequest.of("ok", new Work("appended" + i)).withQueue("other"));
        }
        undoMigration0023(skiplock);
        Jdbc.update(skiplock.dataSource(), "DELETE FROM skiplock_migrations WHERE version = 23");
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(database.url());
        config.setTransactionIsolation("TRANSACTION_REPEATABLE_READ");
        try (com.zaxxer.hikari.HikariDataSource repeatableRead = new com.zaxxer.hikari.HikariDataSource(config);
                Connection fold = skiplock.dataSource().getConnection()) {
            fold.setAutoCommit(false);
            assertThat(Transactions.update(fold, countsFold())).as("groups the open fold moved").isEqualTo(1);
            CompletableFuture<List<String>> migration = CompletableFuture.supplyAsync(
                    () -> new dev.skiplock.internal.store.Migrator(repeatableRead, new PostgresDriver()).migrate());
            // the script runs as one query, shown by its first kilobyte: its opening comment
            Transactions.awaitBlocked(skiplock.dataSource(), "the depth gauges of every process", migration);
            assertThat(migration).as("the migration waits for the open fold").isNotDone();
            fold.commit();
            assertThat(migration.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).containsExactly("0023_job_counts_all_tenants");
            try (Connection pooled = repeatableRead.getConnection()) {
                assertThat(pooled.getTransactionIsolation()).as("the pool's level, given back")
                        .isEqualTo(Connection.TRANSACTION_REPEATABLE_READ);
            }
        }
        assertThat(countedAllTenants(skiplock)).isEqualTo(countedOverTheJobs(skiplock))
                .containsEntry("default/queued", 3L).containsEntry("other/queued", 2L);
    }

    /**
     * Every tenant's totals follow the folded sums however they are written: inserted, updated
     * (also to another queue or status), deleted, several groups in one statement, by SQL that
     * knows nothing of the totals, as a process of 0022's version folds.
     */
    @Test
    void everyTenantsTotalsFollowEachWriteOfTheFoldedSums() {
        Skiplock skiplock = client();
        javax.sql.DataSource data = skiplock.dataSource();
        Jdbc.update(data, "INSERT INTO skiplock_job_counts_folded (tenant, queue, status, jobs) VALUES"
                + " ('a', 'mail', 'queued', 5), ('b', 'mail', 'queued', 7), ('a', 'mail', 'failed', 2),"
                + " ('b', 'pdf', 'running', 3)");
        assertThat(countedAllTenants(skiplock)).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of(
                "mail/failed", 2L, "mail/queued", 12L, "pdf/running", 3L)));

        Jdbc.update(data, "INSERT INTO skiplock_job_counts_folded AS sums (tenant, queue, status, jobs) VALUES"
                + " ('a', 'mail', 'queued', -5), ('c', 'mail', 'queued', 1)"
                + " ON CONFLICT (tenant, queue, status) DO UPDATE SET jobs = sums.jobs + excluded.jobs");
        Jdbc.update(data, "UPDATE skiplock_job_counts_folded SET status = 'succeeded' WHERE queue = 'pdf'");
        Jdbc.update(data, "UPDATE skiplock_job_counts_folded SET jobs = jobs + 1 WHERE status = 'failed'");
        assertThat(countedAllTenants(skiplock)).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of(
                "mail/failed", 3L, "mail/queued", 8L, "pdf/succeeded", 3L)));

        Jdbc.update(data, "DELETE FROM skiplock_job_counts_folded WHERE tenant = 'b'");
        assertThat(countedAllTenants(skiplock)).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of(
                "mail/failed", 3L, "mail/queued", 1L)));
        assertThat(Jdbc.query(data, "SELECT sum(jobs) FROM skiplock_job_counts_folded", row -> row.getLong(1)))
                .containsExactly(4L);
    }

    /**
     * A process older than migration 0022 may still fold while others run the new version: its
     * fold sums each group's deltas into one row of the deltas' table, which the new reads add to
     * the folded sums, and the new fold moves in turn. The counts stay exact throughout.
     */
    @Test
    void anOlderProcesssFoldKeepsTheCountsExact() {
        Skiplock skiplock = client();
        for (int i = 0; i < 4; i++) {
            skiplock.enqueue(JobRequest.of("ok", new Work("folded" + i)));
        }
        jobs(skiplock).compactJobCounts(Duration.ofSeconds(15));
        for (int i = 0; i < 3; i++) {
            skiplock.enqueue(JobRequest.of("ok", new Work("appended" + i)).withQueue("other"));
        }
        skiplock.cancel(skiplock.enqueue(JobRequest.of("ok", new Work("cancelled"))).id());
        // compact_job_counts as it was up to migration 0022
        int folded = Jdbc.update(skiplock.dataSource(), """
                WITH folded AS (
                    DELETE FROM skiplock_job_counts
                    WHERE pg_try_advisory_xact_lock(hashtext('skiplock_job_counts:' || current_schema()))
                      AND (tenant, queue, status) IN (
                          SELECT tenant, queue, status FROM skiplock_job_counts
                          GROUP BY tenant, queue, status HAVING count(*) > 1)
                    RETURNING tenant, queue, status, jobs)
                INSERT INTO skiplock_job_counts (tenant, queue, status, jobs)
                SELECT tenant, queue, status, sum(jobs) FROM folded
                GROUP BY tenant, queue, status
                HAVING sum(jobs) <> 0""");

        assertThat(folded).as("groups the older fold summed").isEqualTo(1);
        assertThat(counted(skiplock)).isEqualTo(countedOverTheJobs(skiplock))
                .containsEntry("default/queued", 4L).containsEntry("other/queued", 3L).containsEntry("default/cancelled", 1L);
        assertExactAfterAFold(skiplock, 3);
    }

    /**
     * The fold of the finishes per minute (compact_job_throughput) folds the minutes since the
     * reaper's interval and a minute ago, at most an hour, into one row per tenant, queue and
     * minute, drops the minutes over an hour old, and leaves older minutes' rows as they are: the
     * finishes each minute shows stay the same.
     */
    @Test
    void theFoldOfTheFinishesPerMinuteFoldsTheRecentMinutesAndDropsTheHourOld() {
        Skiplock skiplock = client();
        awaitEarlyInTheMinute(skiplock);
        String insert = "INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)"
                + " VALUES ('default', 'default', date_trunc('minute', now()) - ? * interval '1 minute', ?)";
        for (int[] minuteAndFinished : new int[][] {{0, 1}, {0, 2}, {0, 3}, {1, 4}, {1, 5}, {10, 6}, {10, 7}, {61, 8}}) {
            Jdbc.update(skiplock.dataSource(), insert, minuteAndFinished[0], minuteAndFinished[1]);
        }
        Jdbc.update(skiplock.dataSource(), "INSERT INTO skiplock_job_throughput (tenant, queue, minute, finished)"
                + " VALUES ('north', 'default', date_trunc('minute', now()), 9),"
                + " ('north', 'default', date_trunc('minute', now()), 10)");
        List<QueueActivity> before = skiplock.activityAllTenants();
        assertThat(before).singleElement()
                .extracting(queue -> queue.finishedPerMinute().stream().mapToLong(Long::longValue).sum())
                .as("every finish of the last 15 minutes").isEqualTo(47L);

        jobs(skiplock).compactJobCounts(Duration.ofSeconds(15));

        assertThat(skiplock.activityAllTenants()).isEqualTo(before);
        assertThat(throughputRows(skiplock)).as("rows of the fold's minutes folded, the older ones left, the hour-old gone")
                .containsExactly("default 0 6", "default 1 9", "default 10 6", "default 10 7", "north 0 19");

        // A reaper interval of two hours: the window reaches back to the hour and no further, so
        // the hour-old rows are deleted, not folded into a row kept for another turn.
        for (int finished : new int[] {11, 12}) {
            Jdbc.update(skiplock.dataSource(), insert, 61, finished);
        }
        jobs(skiplock).compactJobCounts(Duration.ofHours(2));

        assertThat(skiplock.activityAllTenants()).isEqualTo(before);
        assertThat(throughputRows(skiplock)).as("the rows after a fold of the whole hour")
                .containsExactly("default 0 6", "default 1 9", "default 10 13", "north 0 19");
    }

    /**
     * A fold of the finishes per minute that runs while a finishing transaction's delta is
     * uncommitted leaves it for the next fold: none lost, none twice.
     */
    @Test
    void aThroughputFoldDuringAnOpenFinishNeitherLosesNorDoublesItsDelta() throws Exception {
        Skiplock skiplock = clientWithThreeDeltasThisMinute();
        try (Connection open = skiplock.dataSource().getConnection()) {
            open.setAutoCommit(false);
            Transactions.update(open, THIS_MINUTES_DELTA, 4);
            CompletableFuture<Void> fold = CompletableFuture.runAsync(
                    () -> jobs(skiplock).compactJobCounts(Duration.ofSeconds(15)));
            Transactions.awaitBlocked(skiplock.dataSource(), "skiplock_job_throughput", fold);
            assertThat(fold).as("the fold waited for the open finish").isDone();
            fold.get();
            assertThat(throughputRows(skiplock)).containsExactly("default 0 6");
            open.commit();
        }
        assertThat(throughputRows(skiplock)).containsExactly("default 0 4", "default 0 6");
        assertThat(finishedThisMinute(skiplock)).isEqualTo(10);
        jobs(skiplock).compactJobCounts(Duration.ofSeconds(15));
        assertThat(throughputRows(skiplock)).containsExactly("default 0 10");
    }

    /**
     * Two nodes fold the finishes per minute at once: the second, finding the first's transaction
     * open, skips its turn at once (advisory lock) instead of waiting on the rows the first deleted.
     */
    @Test
    void aSecondThroughputFoldSkipsItsTurnWhileAnotherIsOpen() throws Exception {
        Skiplock skiplock = clientWithThreeDeltasThisMinute();
        NamedStatement fold = SqlFile.load(new PostgresDriver().resourceRoot() + "/sql/jobs.sql")
                .get("compact_job_throughput");
        Object[] foldWindow = fold.parameters().stream().map(name -> 75_000L).toArray();
        try (Connection first = skiplock.dataSource().getConnection()) {
            first.setAutoCommit(false);
            assertThat(Transactions.update(first, fold.jdbcSql(), foldWindow)).as("the first fold's folded rows").isEqualTo(1);
            CompletableFuture<Void> second = CompletableFuture.runAsync(
                    () -> jobs(skiplock).compactJobCounts(Duration.ofSeconds(15)));
            Transactions.awaitBlocked(skiplock.dataSource(), "skiplock_job_throughput", second);
            assertThat(second).as("the second fold waited for the first").isDone();
            second.get();
            first.commit();
        }
        assertThat(throughputRows(skiplock)).containsExactly("default 0 6");
        assertThat(finishedThisMinute(skiplock)).isEqualTo(6);
    }

    /** compact_job_counts as jobs.sql has it, to run in a transaction of the test's own. */
    private static String countsFold() {
        return SqlFile.load(new PostgresDriver().resourceRoot() + "/sql/jobs.sql").get("compact_job_counts").jdbcSql();
    }

    /** Folds the counts, then checks they agree with a count over the jobs, from one row per group and no delta. */
    private void assertExactAfterAFold(Skiplock skiplock, int groups) {
        jobs(skiplock).compactJobCounts(Duration.ofSeconds(15));
        assertThat(counted(skiplock)).isEqualTo(countedOverTheJobs(skiplock));
        assertThat(countedAllTenants(skiplock)).isEqualTo(countedOverTheJobs(skiplock));
        assertThat(unfoldedDeltas(skiplock)).isZero();
        assertThat(foldedRows(skiplock)).isEqualTo(groups);
    }

    /** Replays a migration's file on the schema, in a transaction of its own, as the migrator does. */
    private static void migrate(Skiplock skiplock, String migration) throws Exception {
        String text;
        try (var file = PostgresMetricsTest.class.getClassLoader().getResourceAsStream(
                new PostgresDriver().resourceRoot() + "/migrations/" + migration + ".sql")) {
            text = new String(file.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        try (Connection connection = skiplock.dataSource().getConnection();
                java.sql.Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.execute(text);
            connection.commit();
        }
    }

    /** Drops what migration 0023 made (the table of every tenant's totals, its triggers and their functions). */
    private static void undoMigration0023(Skiplock skiplock) {
        Jdbc.update(skiplock.dataSource(), "DROP TABLE skiplock_job_counts_all_tenants");
        for (String change : List.of("inserted", "updated", "deleted")) {
            Jdbc.update(skiplock.dataSource(), "DROP FUNCTION skiplock_job_counts_folded_" + change + "() CASCADE");
        }
    }

    /** A client, early in a minute, and deltas of 1, 2 and 3 finishes of that minute. */
    private Skiplock clientWithThreeDeltasThisMinute() {
        Skiplock skiplock = client();
        awaitEarlyInTheMinute(skiplock);
        for (int finished = 1; finished <= 3; finished++) {
            Jdbc.update(skiplock.dataSource(), THIS_MINUTES_DELTA, finished);
        }
        return skiplock;
    }

    /** The rows are named by minutes ago: a test runs within one minute of the database's clock. */
    private static void awaitEarlyInTheMinute(Skiplock skiplock) {
        await().atMost(Duration.ofSeconds(30)).until(() -> Jdbc.query(skiplock.dataSource(),
                "SELECT EXTRACT(SECOND FROM now()) < 45", row -> row.getBoolean(1)).getFirst());
    }

    private static long finishedThisMinute(Skiplock skiplock) {
        return skiplock.activity().getFirst().finishedPerMinute().getLast();
    }

    /** Each row of the finishes per minute as "tenant minutes-ago finished", in that order. */
    private static List<String> throughputRows(Skiplock skiplock) {
        return Jdbc.query(skiplock.dataSource(), "SELECT tenant || ' ' || CAST(EXTRACT(EPOCH FROM"
                + " date_trunc('minute', now()) - minute) / 60 AS integer) || ' ' || finished AS row"
                + " FROM skiplock_job_throughput ORDER BY tenant, minute DESC, finished", row -> row.getString(1));
    }
}
