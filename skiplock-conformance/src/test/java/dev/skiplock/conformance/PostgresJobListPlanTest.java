package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobClient;
import dev.skiplock.JobPage;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.store.JobStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's job list merges the live jobs and the history, each read newest first from its own
 * indexes. A backlog of queued jobs older or newer than a long history made the first page merge a
 * half whose first row lay past all the other's: the walk read every job between (1 million of
 * each: 200-374 ms a page, issue #12). The store now reads the newest jobs first, by a statement of
 * their own (list_newest_jobs), and stops there when they fill the page.
 */
class PostgresJobListPlanTest extends ContractBase {
    private static final int EACH = 10_000;
    private static final int PAGE = 50;

    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    record Work(int n) {
    }

    /** 10,000 queued jobs, then 10,000 finished: the first page is the newest finished (read 10,000 rows before). */
    @Test
    void aFirstPageOverABacklogOlderThanTheHistoryReadsOnlyTheNewestJobs() throws Exception {
        Skiplock client = client();
        enqueue(client, "parking");
        List<Job> finished = succeed(enqueue(client, "done"));

        assertThat(firstPage(client)).containsExactlyElementsOf(newest(finished));
    }

    /** 10,000 finished jobs, then 10,000 queued: the first page is the newest queued (read 10,000 rows before). */
    @Test
    void aFirstPageOverABacklogNewerThanTheHistoryReadsOnlyTheNewestJobs() throws Exception {
        Skiplock client = client();
        succeed(enqueue(client, "done"));
        List<Job> queued = enqueue(client, "parking");

        assertThat(firstPage(client)).containsExactlyElementsOf(newest(queued));
    }

    /**
     * A filter that 20 of the newest 500 jobs match: the page comes from the halves' statement, each
     * job on it once though two parts of the live half read it (backlog_page's jobs, which do not
     * fill the page, are read again with every live job). 10,000 queued jobs, 10,000 finished, 20
     * queued; filtered by status queued, the page is the 50 newest queued. Half the table is live
     * here, so the live half may read it by a sequential scan: what is read is not tested.
     */
    @Test
    void aPageTheNewestJobsDoNotFillComesFromTheHalvesWithEachJobOnce() throws Exception {
        Skiplock client = client();
        List<Job> queued = new ArrayList<>(enqueue(client, "parking", EACH));
        succeed(enqueue(client, "done", EACH));
        queued.addAll(enqueue(client, "parking", 20));

        Read read = read(client, store -> store.listJobs(Skiplock.DEFAULT_TENANT,
                new JobQuery(JobStatus.QUEUED, null, null, PAGE, null)));
        assertThat(read.ids()).containsExactlyElementsOf(newest(queued));
    }

    /**
     * Every tenant's list of a queue few jobs are in, over a history: its history indexes start with
     * the tenant, so the list reads each tenant's range of them (the tenants found one index probe
     * each) where it read the whole table, or the whole of an index. 40,000 finished jobs of queue
     * {@code done} over two tenants, after 20 of queue {@code rare}: the page is the 20, read in
     * fewer than 250 pages of the table and its indexes (about 160: the probes, then the 20 ids from
     * the index and each job by its key; 394 as one query).
     */
    @Test
    void everyTenantsListOfARareQueueReadsEachTenantsHistoryByItsIndex() throws Exception {
        Skiplock client = client();
        List<Job> rare = new ArrayList<>(succeed(enqueue(client, "rare", 10)));
        rare.addAll(succeed(enqueue(client.tenant("acme"), "rare", 10)));
        succeed(enqueue(client, "done", 2 * EACH));
        succeed(enqueue(client.tenant("acme"), "done", 2 * EACH));

        Read read = read(client, store -> store.listJobsAllTenants(new JobQuery(null, "rare", null, PAGE, null)));
        assertThat(read.sequentialScans()).as("sequential scans of skiplock_jobs by the list").isZero();
        assertThat(read.pages()).as("pages of skiplock_jobs and its indexes the list read").isLessThan(250);
        assertThat(read.ids()).isEqualTo(newest(rare));
    }

    /**
     * A queue's list behind another queue's backlog: its live jobs are read from the queue's range
     * of the live jobs' indexes. Newest first by the primary key, the planner guessed the queue had
     * many live jobs (it has many finished ones) and walked the backlog and the history behind it.
     * 19,000 finished jobs of queue {@code mail}, then 5 queued, then 2,000 queued of
     * {@code backlog} (fewer than ANALYZE's sample of 30,000 rows, so that the statistics are the
     * same at each run; with a backlog as large as the history, the planner may rightly read the
     * live jobs by a scan of the table): the page is the 5 and the newest 45 finished, read in fewer
     * than 5,000 rows (23,555 before), by either list. (The history half may still walk the
     * key through the backlog to its first finished job: 2,555 rows.)
     */
    @Test
    void aQueuesListBehindAnotherQueuesBacklogReadsOnlyThatQueuesLiveJobs() throws Exception {
        Skiplock client = client();
        List<Job> mail = new ArrayList<>(succeed(enqueue(client, "mail", 19_000)));
        mail.addAll(enqueue(client, "mail", 5));
        enqueue(client, "backlog", 2_000);
        JobQuery ofMail = new JobQuery(null, "mail", null, PAGE, null);

        for (Function<JobStore, JobPage> list : bothLists(ofMail)) {
            Read read = read(client, list);
            assertThat(read.sequentialScans()).as("sequential scans of skiplock_jobs by the list").isZero();
            assertThat(read.rows()).as("rows of skiplock_jobs the list read").isLessThan(5_000);
            assertThat(read.ids()).isEqualTo(newest(mail));
        }
    }

    /**
     * A kind that one in 20 of a backlog's jobs have: more than 1,000 live jobs, so the live half
     * first reads the live jobs among the newest 10,000 by the key, which holds the page, rather
     * than every job of the backlog. 20,000 queued jobs, every 20th of kind {@code five}: the page
     * is the newest 50 of that kind, read in fewer than 5,000 rows (the newest 500, the count of
     * the live jobs up to 1,001, which a sequential scan may read, and the newest 1,000; reading
     * the whole backlog, 21,501; the key's walk before the live half changed, 1,500).
     */
    @Test
    void aKindThatOneInTwentyOfABacklogHaveIsReadFromTheNewestJobs() throws Exception {
        Skiplock client = client();
        List<Job> five = new ArrayList<>();
        for (int from = 0; from < 2 * EACH; from += 1_000) {
            List<JobRequest> batch = new ArrayList<>();
            for (int i = from; i < from + 1_000; i++) {
                batch.add(JobRequest.of(i % 20 == 0 ? "five" : "work", new Work(i)).withQueue("parking"));
            }
            client.enqueueMany(batch).stream().filter(job -> job.kind().equals("five")).forEach(five::add);
        }
        JobQuery ofFive = new JobQuery(null, null, "five", PAGE, null);

        for (Function<JobStore, JobPage> list : bothLists(ofFive)) {
            Read read = read(client, list);
            assertThat(read.rows()).as("rows of skiplock_jobs the list read").isLessThan(5_000);
            assertThat(read.ids()).isEqualTo(newest(five));
        }
    }

    /**
     * Every tenant's list of a status, with one large tenant and one small: each tenant's history
     * is read as ids from its index, then its newest jobs by their key. Read with the rows, the
     * planner guessed each tenant held a share of the jobs it does not and walked the primary key,
     * through the whole table for the small one. 1,000 finished jobs of {@code tiny}, then 18,000
     * of the default tenant, then 10,000 queued, written by SQL in id order, fewer than
     * ANALYZE's sample of 30,000 rows so that the statistics are the same at each run: the page is
     * the newest 50 finished, read in fewer than 1,000 rows (38,600 before).
     */
    @Test
    void everyTenantsListOfAStatusReadsASmallTenantsHistoryByItsIndex() throws Exception {
        Skiplock client = client();
        List<UUID> newestFinished = succeededThenQueued("CASE WHEN g <= 1000 THEN 'tiny' ELSE 'default' END",
                19_000, 29_000);

        Read read = read(client, store -> store.listJobsAllTenants(new JobQuery(JobStatus.SUCCEEDED, null, null, PAGE, null)));
        assertThat(read.sequentialScans()).as("sequential scans of skiplock_jobs by the list").isZero();
        assertThat(read.rows()).as("rows of skiplock_jobs the list read").isLessThan(1_000);
        assertThat(read.ids()).isEqualTo(newestFinished);
    }

    /**
     * A tenant's list of a finished status behind a newer backlog: the history half reads the
     * status's index. Given the status's value, the planner guessed from the whole table that most
     * of the tenant's jobs have it (so the key, newest first, would find a page within a few rows)
     * and walked the key through the backlog to the first finished job. 20,000 succeeded jobs, then
     * 5,000 queued, written by SQL in id order (fewer than ANALYZE's sample of 30,000 rows): the
     * page is the newest 50 succeeded, read in fewer than 1,000 rows (550: the newest 500 jobs,
     * then the page; 5,550 before).
     */
    @Test
    void aTenantsListOfAStatusBehindABacklogReadsTheStatusIndex() throws Exception {
        Skiplock client = client();
        List<UUID> newestSucceeded = succeededThenQueued("'default'", 20_000, 25_000);

        Read read = read(client, store -> store.listJobs(Skiplock.DEFAULT_TENANT,
                new JobQuery(JobStatus.SUCCEEDED, null, null, PAGE, null)));
        assertThat(read.sequentialScans()).as("sequential scans of skiplock_jobs by the list").isZero();
        assertThat(read.rows()).as("rows of skiplock_jobs the list read").isLessThan(1_000);
        assertThat(read.ids()).isEqualTo(newestSucceeded);
    }

    /**
     * Jobs 1 to {@code total} written by SQL in id order (as a worker leaves them over time; finished
     * by one UPDATE the table's order and the plan differ), of the tenant {@code tenantOfG} gives
     * job {@code g}, in queue {@code done}: the first {@code succeeded} succeeded, the rest queued.
     * Returns the newest page of the succeeded.
     */
    private List<UUID> succeededThenQueued(String tenantOfG, int succeeded, int total) throws Exception {
        writeJobs(tenantOfG, "CASE WHEN g <= " + succeeded + " THEN 'succeeded' ELSE 'queued' END", total);
        return newestOf(JobStatus.SUCCEEDED, null);
    }

    /**
     * Jobs 1 to {@code total} written by SQL in id order, of the tenant and status the SQL
     * expressions {@code tenantOfG} and {@code statusOfG} give job {@code g}, in queue {@code done}.
     */
    private void writeJobs(String tenantOfG, String statusOfG, int total) throws Exception {
        try (Connection connection = DriverManager.getConnection(database.url());
                Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO skiplock_jobs (id, tenant, queue, kind, args, metadata, priority, status,"
                    + " max_attempts, available_at, requested_at, finished_at)"
                    + " SELECT CAST(lpad(to_hex(g), 8, '0') || '-0000-7000-8000-000000000000' AS uuid), " + tenantOfG
                    + ", 'done', 'work', '{}', '{}', 0, status, 1, now(), now(),"
                    + " CASE WHEN status <> 'queued' THEN now() END"
                    + " FROM generate_series(1, " + total + ") AS g, LATERAL (SELECT " + statusOfG + " AS status) AS s");
        }
    }

    /** The newest page of the jobs of {@code status} below {@code cursor} (null: all of them). */
    private List<UUID> newestOf(JobStatus status, UUID cursor) {
        return Jdbc.query(client().dataSource(), "SELECT id FROM skiplock_jobs WHERE status = '" + status.wireName()
                + "' AND id < CAST('" + (cursor == null ? "ffffffff-ffff-ffff-ffff-ffffffffffff" : cursor) + "' AS uuid)"
                + " ORDER BY id DESC LIMIT " + PAGE, row -> row.getObject(1, UUID.class));
    }

    /**
     * The next page of a status one in 500 jobs have, from a cursor in the middle of the history:
     * the history half reads the status's index from the cursor. 25,000 jobs, every 500th failed
     * and the rest succeeded; the cursor is the 20th newest failed job's id; the page is the 30
     * below it, read in fewer than 1,000 rows. (With the status's value hidden from the planner, as
     * build 85cb9fc had it, it walked the key from the cursor to the first job: 15,999 rows.)
     */
    @Test
    void theNextPageOfARareStatusReadsTheStatusIndexFromTheCursor() throws Exception {
        Skiplock client = client();
        writeJobs("'default'", "CASE WHEN g % 500 = 0 THEN 'failed' ELSE 'succeeded' END", 25_000);
        UUID cursor = newestOf(JobStatus.FAILED, null).get(19);

        Read read = read(client, store -> store.listJobs(Skiplock.DEFAULT_TENANT,
                new JobQuery(JobStatus.FAILED, null, null, PAGE, cursor)));
        assertThat(read.sequentialScans()).as("sequential scans of skiplock_jobs by the list").isZero();
        assertThat(read.rows()).as("rows of skiplock_jobs the list read").isLessThan(1_000);
        assertThat(read.ids()).hasSize(30).isEqualTo(newestOf(JobStatus.FAILED, cursor));
    }

    /**
     * A status no job has with a queue every job has: the history half reads the status's index,
     * not the queue's. 25,000 succeeded jobs of queue {@code done}; the page of failed jobs of
     * {@code done} is empty, read in fewer than 1,000 rows. (With the values hidden from the
     * planner, as build 85cb9fc had them, it read the queue's index, the index of the value with
     * fewer distinct ones: 25,500 rows.)
     */
    @Test
    void aStatusNoJobHasWithACommonQueueReadsTheStatusIndex() throws Exception {
        Skiplock client = client();
        writeJobs("'default'", "'succeeded'", 25_000);

        Read read = read(client, store -> store.listJobs(Skiplock.DEFAULT_TENANT,
                new JobQuery(JobStatus.FAILED, "done", null, PAGE, null)));
        assertThat(read.sequentialScans()).as("sequential scans of skiplock_jobs by the list").isZero();
        assertThat(read.rows()).as("rows of skiplock_jobs the list read").isLessThan(1_000);
        assertThat(read.ids()).isEmpty();
    }

    /** The default tenant's list and every tenant's, of {@code query}. */
    private static List<Function<JobStore, JobPage>> bothLists(JobQuery query) {
        return List.of(store -> store.listJobs(Skiplock.DEFAULT_TENANT, query), store -> store.listJobsAllTenants(query));
    }

    /** Pages of skiplock_jobs that VACUUM has not marked all-visible. */
    private static long notAllVisible(Connection connection) throws Exception {
        return Jdbc.number(connection, "SELECT relpages - relallvisible FROM pg_class"
                + " WHERE oid = CAST('skiplock_jobs' AS regclass)");
    }

    /** Pages of skiplock_jobs and of its indexes read in this transaction so far. */
    private static long pagesOfTheJobs(Connection connection) throws Exception {
        return Jdbc.number(connection, "SELECT sum(pg_stat_get_xact_blocks_fetched(oid)) FROM pg_class"
                + " WHERE oid = CAST('skiplock_jobs' AS regclass)"
                + " OR oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = CAST('skiplock_jobs' AS regclass))");
    }

    /** The first page, unfiltered, read in fewer rows than 1,000 (the newest 50 serve). */
    private List<UUID> firstPage(Skiplock client) throws Exception {
        return page(client, null, 2L * 10 * PAGE);
    }

    /** The page the store lists in a transaction of its own connection, reading fewer rows than {@code maxRowsRead}. */
    private List<UUID> page(Skiplock client, JobStatus status, long maxRowsRead) throws Exception {
        Read read = read(client, store -> store.listJobs(Skiplock.DEFAULT_TENANT, new JobQuery(status, null, null, PAGE, null)));
        assertThat(read.sequentialScans()).as("sequential scans of skiplock_jobs by the list").isZero();
        assertThat(read.rows()).as("rows of skiplock_jobs the list read").isLessThan(maxRowsRead);
        return read.ids();
    }

    /** What a list read: its page, and the scans, rows and pages of skiplock_jobs (and its indexes) it took. */
    record Read(List<UUID> ids, long sequentialScans, long rows, long pages) {
    }

    /**
     * Lists by {@code list} in a transaction of its own connection, rolled back, after VACUUM ANALYZE
     * and then VACUUM (again until it has) have marked every page of the table all-visible. A VACUUM
     * while another connection's snapshot is open leaves recent pages unmarked; the planner then
     * prices an index-only scan as reading the table too, and took a sequential scan in one run of
     * three.
     */
    private Read read(Skiplock client, Function<JobStore, JobPage> list) throws Exception {
        try (Connection connection = DriverManager.getConnection(database.url())) {
            try (Statement vacuum = connection.createStatement()) {
                vacuum.execute("VACUUM ANALYZE skiplock_jobs");
                // Another session's snapshot older than the jobs (an autovacuum's ANALYZE of another
                // test's table, say) keeps VACUUM from marking their pages until it ends: VACUUM
                // again until then (a clean-clone CI run once had 100 VACUUMs in 0.6 s all fall
                // within such a snapshot).
                await().alias("every page of skiplock_jobs all-visible after VACUUM").atMost(WAIT)
                        .pollInterval(Duration.ofMillis(50)).until(() -> {
                            vacuum.execute("VACUUM skiplock_jobs");
                            return notAllVisible(connection) == 0;
                        });
            }
            connection.setAutoCommit(false);
            try {
                JobStore store = new JobStore(OneConnection.lending(connection), FastPathContract.driver(client));
                long[] before = PostgresRetentionPlanTest.reads(connection);
                long pagesBefore = pagesOfTheJobs(connection);
                JobPage page = list.apply(store);
                long pages = pagesOfTheJobs(connection) - pagesBefore;
                long[] after = PostgresRetentionPlanTest.reads(connection);
                return new Read(page.jobs().stream().map(Job::id).toList(), after[0] - before[0], after[1] - before[1],
                        pages);
            } finally {
                connection.rollback();
            }
        }
    }

    private static List<UUID> newest(List<Job> jobs) {
        return jobs.stream().map(Job::id).sorted(Comparator.reverseOrder()).limit(PAGE).toList();
    }

    private static List<Job> enqueue(Skiplock client, String queue) {
        return enqueue(client, queue, EACH);
    }

    private static List<Job> enqueue(JobClient client, String queue, int count) {
        List<Job> jobs = new ArrayList<>();
        for (int from = 0; from < count; from += 1_000) {
            List<JobRequest> batch = new ArrayList<>();
            for (int i = from; i < Math.min(count, from + 1_000); i++) {
                batch.add(JobRequest.of("work", new Work(i)).withQueue(queue));
            }
            jobs.addAll(client.enqueueMany(batch));
        }
        return jobs;
    }

    /** The jobs as a worker leaves them once they succeeded (none serves their queue). */
    private List<Job> succeed(List<Job> jobs) {
        Jdbc.update(client().dataSource(), "UPDATE skiplock_jobs SET status = 'succeeded', finished_at = now()"
                + " WHERE queue = ? AND tenant = ?", jobs.getFirst().queue(), jobs.getFirst().tenant());
        return jobs;
    }
}
