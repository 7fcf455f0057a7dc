package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

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
 * each: 200-374 ms a page, issue #12). The list now reads the newest jobs first and stops there
 * when they fill the page. SQLite's list is one walk of the key for every status already.
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
     * A filter that 20 of the newest 500 jobs match: the halves complete the page, and the 20 they
     * find again are on it once. 10,000 queued jobs, 10,000 finished, 20 queued; filtered by status
     * queued, the page is the 50 newest queued.
     */
    @Test
    void aPageTheNewestJobsPartlyFillIsCompletedFromTheHalvesWithEachJobOnce() throws Exception {
        Skiplock client = client();
        List<Job> queued = new ArrayList<>(enqueue(client, "parking", EACH));
        succeed(enqueue(client, "done", EACH));
        queued.addAll(enqueue(client, "parking", 20));

        assertThat(page(client, JobStatus.QUEUED, Long.MAX_VALUE)).containsExactlyElementsOf(newest(queued));
    }

    /**
     * Every tenant's list of a queue few jobs are in, over a history: its history indexes start with
     * the tenant, so the list reads each tenant's range of them (the tenants found one index probe
     * each) where it read the whole table, or the whole of an index. 20,000 finished jobs of queue
     * {@code done} over two tenants, after 20 of queue {@code rare}: the page is the 20, read in
     * fewer than 100 pages of the table and its indexes.
     */
    @Test
    void everyTenantsListOfARareQueueReadsEachTenantsHistoryByItsIndex() throws Exception {
        Skiplock client = client();
        List<Job> rare = new ArrayList<>(succeed(enqueue(client, "rare", 10)));
        rare.addAll(succeed(enqueue(client.tenant("acme"), "rare", 10)));
        succeed(enqueue(client, "done", EACH));
        succeed(enqueue(client.tenant("acme"), "done", EACH));

        Read read = read(client, store -> store.listJobsAllTenants(new JobQuery(null, "rare", null, PAGE, null)));
        assertThat(read.sequentialScans()).as("sequential scans of skiplock_jobs by the list").isZero();
        assertThat(read.pages()).as("pages of skiplock_jobs and its indexes the list read").isLessThan(100);
        assertThat(read.ids()).isEqualTo(newest(rare));
    }

    /** Pages of skiplock_jobs and of its indexes read in this transaction so far. */
    private static long pagesOfTheJobs(Connection connection) throws Exception {
        return Jdbc.number(connection, "SELECT sum(pg_stat_get_xact_blocks_fetched(oid)) FROM pg_class"
                + " WHERE oid = CAST('skiplock_jobs' AS regclass)"
                + " OR oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = CAST('skiplock_jobs' AS regclass))");
    }

    /** The first page, unfiltered, read in fewer rows than twice the newest 500 it may take. */
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

    /** Lists by {@code list} in a transaction of its own connection, rolled back, after VACUUM ANALYZE. */
    private Read read(Skiplock client, Function<JobStore, JobPage> list) throws Exception {
        try (Connection connection = DriverManager.getConnection(database.url())) {
            try (Statement vacuum = connection.createStatement()) {
                vacuum.execute("VACUUM ANALYZE skiplock_jobs");
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
