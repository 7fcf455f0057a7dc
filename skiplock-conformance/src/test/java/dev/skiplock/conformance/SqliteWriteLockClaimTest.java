package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * SQLite writes one transaction at a time: a claim that waits for the write lock counts its free
 * slots once it holds the lock, so the slots freed while it waited go into the same statement
 * (SQLite pays a commit per statement whatever its size; a claimer that counted before waiting took
 * about half of what it could in a drain).
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
        allHeld.await();
        List<UUID> quick = Arrays.stream(new int[concurrency])
                .mapToObj(i -> client.enqueue(JobRequest.of("quick", new Numbered(i))).id()).toList();

        try (Connection writer = DriverManager.getConnection(database.url() + "?busy_timeout=30000");
                Statement statement = writer.createStatement()) {
            statement.execute("BEGIN IMMEDIATE"); // the write lock: every writer of the worker now waits
            holds[0].countDown();
            holders.get(0).join(); // its slot is free: the claimer wakes and waits for the lock with it
            awaitClaimWaitingForTheWriteLock("skiplock-claim-default");
            holds[1].countDown();
            holds[2].countDown();
            holders.get(1).join(); // two more slots free while the claim waits
            holders.get(2).join();
            statement.execute("COMMIT");
        }

        quick.forEach(id -> awaitStatus(client, id, JobStatus.SUCCEEDED));
        List<String> claimTokens = Jdbc.query(client.dataSource(),
                "SELECT DISTINCT claim_token FROM skiplock_jobs WHERE kind = 'quick'", row -> row.getString(1));
        assertThat(claimTokens).as("one claim statement took the three quick jobs").hasSize(1);
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
