package dev.skiplock.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.Uuid7;
import dev.skiplock.internal.store.JobStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lone enqueues that come while another waits for SQLite's write lock are written after it in one
 * statement and one commit (group commit, issue #12's HTTP submit target). Each interleaving is
 * forced: another connection holds the write lock until the first enqueue is inside its statement
 * and the others wait behind it.
 */
class SqliteGroupCommitTest {
    private static final long BOUND_SECONDS = 30;

    @TempDir
    Path folder;

    private String url;
    private Skiplock migrated;
    private HikariDataSource pool;
    private JobStore store;
    /** Each insert the store ran, in order: "lone" (insert_queued_job) or "group" (insert_jobs). */
    private final List<String> inserts = new CopyOnWriteArrayList<>();
    private final CountDownLatch loneInsertStarted = new CountDownLatch(1);

    @BeforeEach
    void open() {
        url = "jdbc:sqlite:" + folder.resolve("jobs.db");
        migrated = Skiplock.builder().url(url).build();
        HikariConfig config = new HikariConfig();
        config.setDataSource(watched(new SqliteConnections(url + "?" + SqliteDriver.SETTINGS
                + "&synchronous=" + SqliteDriver.synchronous(url), SqliteDriver.BUSY_TIMEOUT_MILLIS)));
        config.setMaximumPoolSize(4);
        pool = new HikariDataSource(config);
        store = new JobStore(pool, new SqliteDriver());
    }

    @AfterEach
    void close() {
        pool.close();
        migrated.close();
    }

    @Test
    void enqueuesThatWaitBehindAnotherAreWrittenInOneStatementEachAnsweredWithItsJob() throws Exception {
        Map<Job, CompletableFuture<Job>> answers = enqueueBehindTheWriteLock(
                List.of(job("first"), job("a"), job("b"), job("c")));

        for (Map.Entry<Job, CompletableFuture<Job>> answer : answers.entrySet()) {
            Job stored = answer.getValue().get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(stored.id()).isEqualTo(answer.getKey().id());
            assertThat(stored.queue()).isEqualTo(answer.getKey().queue());
            assertThat(stored.requestedAt()).isNotNull();
        }
        assertThat(inserts).containsExactly("lone", "group");
        assertThat(queuedJobs()).containsExactlyInAnyOrder("first", "a", "b", "c");
    }

    /**
     * A statement of gathered enqueues carries at most 1 Mi characters of their JSON documents
     * (args and metadata): a job that would take it past that goes in the next statement, and one
     * left alone in a statement is written alone, on its caller's thread.
     */
    @Test
    void gatheredEnqueuesCarryAtMostAMegabyteOfDocumentsAStatement() throws Exception {
        Job large = job("large", 600_000);
        Job alsoLarge = job("also-large", 600_000);
        Map<Job, CompletableFuture<Job>> answers = enqueueBehindTheWriteLock(
                List.of(job("first"), large, alsoLarge, job("c"), job("d")));

        for (Map.Entry<Job, CompletableFuture<Job>> answer : answers.entrySet()) {
            Job stored = answer.getValue().get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(stored.id()).isEqualTo(answer.getKey().id());
            assertThat(stored.args()).isEqualTo(answer.getKey().args());
        }
        // The first alone; "also-large", "c" and "d" in one statement; "large" then, alone (it
        // left no room for the next); the order of the gathered ones is their arrival's.
        assertThat(inserts).containsExactly("lone", "group", "lone");
        assertThat(queuedJobs()).containsExactlyInAnyOrder("first", "large", "also-large", "c", "d");
    }

    /**
     * A group is one statement: data the database refuses in one job makes each of the others be
     * written again alone. The trigger refuses a job as SQLite refuses data it cannot store (a
     * malformed JSON document: {@code SqliteDialect.isDataError}).
     */
    @Test
    void aJobWhoseDataTheDatabaseRefusesFailsOnlyItsOwnEnqueue() throws Exception {
        createTrigger("SELECT json('test: refused')");
        Job refused = job("refused");
        Map<Job, CompletableFuture<Job>> answers = enqueueBehindTheWriteLock(
                List.of(job("first"), job("a"), refused, job("c")));

        for (Map.Entry<Job, CompletableFuture<Job>> answer : answers.entrySet()) {
            if (answer.getKey() == refused) {
                assertThat(answer.getValue()).failsWithin(BOUND_SECONDS, TimeUnit.SECONDS)
                        .withThrowableOfType(ExecutionException.class).withStackTraceContaining("malformed JSON");
            } else {
                assertThat(answer.getValue().get(BOUND_SECONDS, TimeUnit.SECONDS).id()).isEqualTo(answer.getKey().id());
            }
        }
        assertThat(inserts).containsExactly("lone", "group", "lone", "lone", "lone");
        assertThat(queuedJobs()).containsExactlyInAnyOrder("first", "a", "c");
    }

    /** A group refused for another reason fails each of its enqueues, none written again (each would wait for the same). */
    @Test
    void aGroupThatFailsForAnotherReasonFailsEachOfItsEnqueuesAndNoneIsWrittenAgain() throws Exception {
        createTrigger("SELECT RAISE(ABORT, 'test: refused')");
        Map<Job, CompletableFuture<Job>> answers = enqueueBehindTheWriteLock(
                List.of(job("first"), job("a"), job("refused"), job("c")));

        assertThat(answers.values().iterator().next().get(BOUND_SECONDS, TimeUnit.SECONDS).queue()).isEqualTo("first");
        List<Throwable> failures = new ArrayList<>();
        for (CompletableFuture<Job> answer : answers.values().stream().skip(1).toList()) {
            assertThat(answer).failsWithin(BOUND_SECONDS, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
                    .withStackTraceContaining("test: refused").satisfies(failure -> failures.add(failure.getCause()));
        }
        assertThat(failures).as("the leader's own failure, and each follower's caused by it")
                .filteredOn(failure -> String.valueOf(failure.getMessage())
                        .startsWith("written in one statement with other enqueues, which failed"))
                .hasSize(2);
        assertThat(failures).as("the leader's").filteredOn(failure -> String.valueOf(failure.getMessage())
                .contains("statement 'insert_jobs' failed")
                && !failure.getMessage().startsWith("written in one statement")).hasSize(1);
        assertThat(inserts).containsExactly("lone", "group");
        assertThat(queuedJobs()).containsExactly("first");
    }

    private void createTrigger(String body) throws Exception {
        try (Connection admin = DriverManager.getConnection(url); Statement statement = admin.createStatement()) {
            statement.execute("CREATE TRIGGER test_refuse BEFORE INSERT ON skiplock_jobs WHEN NEW.queue = 'refused'"
                    + " BEGIN " + body + "; END");
        }
    }

    /**
     * Holds the write lock on another connection; enqueues the first job (it waits for the lock
     * inside its statement), then the others one by one (they wait behind it, in their order); lets
     * go of the lock once all do.
     */
    private Map<Job, CompletableFuture<Job>> enqueueBehindTheWriteLock(List<Job> jobs) throws Exception {
        Map<Job, CompletableFuture<Job>> answers = new LinkedHashMap<>();
        List<Thread> behind = new ArrayList<>();
        try (Connection holder = DriverManager.getConnection(url); Statement lock = holder.createStatement()) {
            lock.execute("BEGIN IMMEDIATE");
            answers.put(jobs.getFirst(), enqueueOnItsOwnThread(jobs.getFirst(), new ArrayList<>()));
            assertThat(loneInsertStarted.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            for (Job job : jobs.subList(1, jobs.size())) {
                answers.put(job, enqueueOnItsOwnThread(job, behind));
                // One after the other, so that they wait in the order given
                while (!behind.stream().allMatch(SqliteGroupCommitTest::waitsForAGroup)) {
                    assertThat(System.nanoTime()).as("the enqueues wait behind the first").isLessThan(deadline);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            }
            assertThat(inserts).as("nothing written while the lock is held").containsExactly("lone");
            lock.execute("COMMIT");
        }
        return answers;
    }

    private CompletableFuture<Job> enqueueOnItsOwnThread(Job job, List<Thread> threads) {
        CompletableFuture<Job> answer = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                answer.complete(store.insertJobs(List.of(job)).jobs().getFirst());
            } catch (Throwable e) {
                answer.completeExceptionally(e);
            }
        }, "enqueue " + job.queue());
        threads.add(thread);
        thread.start();
        return answer;
    }

    /**
     * Parked in the group commit, waiting for the write before it to end (not on the way in, for
     * the lock that guards the waiting writes: such a write may not be gathered yet).
     */
    private static boolean waitsForAGroup(Thread thread) {
        StackTraceElement[] stack = thread.getStackTrace();
        return thread.getState() == Thread.State.WAITING
                && Arrays.stream(stack).anyMatch(frame -> frame.getMethodName().equals("awaitUninterruptibly"))
                && Arrays.stream(stack).anyMatch(frame -> frame.getClassName().endsWith(".GroupCommit"));
    }

    private List<String> queuedJobs() throws Exception {
        List<String> queues = new ArrayList<>();
        try (Connection reader = DriverManager.getConnection(url); Statement statement = reader.createStatement();
                ResultSet rows = statement.executeQuery("SELECT queue FROM skiplock_jobs WHERE status = 'queued'")) {
            while (rows.next()) {
                queues.add(rows.getString(1));
            }
        }
        return queues;
    }

    /** A plain job as the client builds one from a request, in its own queue (the test's name for it). */
    private static Job job(String queue) {
        return job(queue, 0);
    }

    /** As {@link #job(String)}, its args a text of {@code characters} characters. */
    private static Job job(String queue, int characters) {
        return Job.builder().id(Uuid7.next()).tenant(Skiplock.DEFAULT_TENANT).queue(queue).kind("work")
                .args(characters == 0 ? Json.MAPPER.createObjectNode()
                        : Json.MAPPER.createObjectNode().put("text", "x".repeat(characters)))
                .metadata(Json.MAPPER.createObjectNode())
                .status(JobStatus.QUEUED).maxAttempts(3).dependsOn(List.of()).build();
    }

    /** {@code target}'s connections, recording each insert of jobs as it starts. */
    private DataSource watched(DataSource target) {
        return Intercepted.connections(target, this::watched);
    }

    private Connection watched(Connection target) {
        return Intercepted.proxy(Connection.class, (method, args) -> {
            Object result = Intercepted.invoke(method, target, args);
            if (method.getName().equals("prepareStatement") && ((String) args[0]).contains("INSERT INTO skiplock_jobs")) {
                String insert = ((String) args[0]).contains("json_each") ? "group" : "lone";
                PreparedStatement statement = (PreparedStatement) result;
                return Intercepted.proxy(PreparedStatement.class, (inner, innerArgs) -> {
                    if (inner.getName().startsWith("execute")) {
                        inserts.add(insert);
                        if (insert.equals("lone")) {
                            loneInsertStarted.countDown();
                        }
                    }
                    return Intercepted.invoke(inner, statement, innerArgs);
                });
            }
            return result;
        });
    }
}
