package dev.skiplock.conformance;

import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import dev.skiplock.RetryPolicy;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every contract class shares: a fresh real database per test, instances built on it with
 * short test timings, and waits on conditions (never fixed sleeps).
 */
abstract class ContractBase {
    /** Generous bound for conditions; a healthy run meets them in milliseconds. */
    static final Duration WAIT = Duration.ofSeconds(30);

    protected TestDatabase database;
    private final List<Skiplock> instances = java.util.Collections.synchronizedList(new ArrayList<>()); // tracked from starter threads too

    /** The database this subclass runs the contract against. */
    protected abstract TestDatabase newDatabase();

    @BeforeEach
    void openDatabase() {
        database = newDatabase();
    }

    @AfterEach
    void closeEverything() {
        closeInstances();
        database.close();
    }

    /** Closes the instances this test started, newest first (a subclass's clean-up may need them gone first). */
    void closeInstances() {
        for (Skiplock instance : instances.reversed()) {
            instance.close();
        }
        instances.clear();
    }

    /** Short timings so lease, reaper and retry paths run in well under a second. */
    static SkiplockConfig.Builder fastConfig() {
        return SkiplockConfig.builder()
                .leaseTtl(Duration.ofSeconds(2))
                .heartbeatInterval(Duration.ofMillis(500))
                .reaperInterval(Duration.ofMillis(300))
                .pollInterval(Duration.ofMillis(100))
                .shutdownTimeout(Duration.ofSeconds(2))
                .retryPolicy(new RetryPolicy(Duration.ofMillis(50), Duration.ofMillis(200), 0.1));
    }

    /** A builder on this test's database with {@link #fastConfig()} changed by {@code tweak}. */
    Skiplock.Builder builder(Consumer<SkiplockConfig.Builder> tweak) {
        SkiplockConfig.Builder config = fastConfig();
        tweak.accept(config);
        return Skiplock.builder().url(database.url()).config(config.build());
    }

    /** Builds, starts and remembers the instance so it is closed after the test. */
    Skiplock started(Skiplock.Builder builder) {
        return track(builder.build()).start();
    }

    /** An enqueue-only client: no queues, no workers. */
    Skiplock client() {
        return track(builder(config -> { }).build());
    }

    Skiplock track(Skiplock instance) {
        instances.add(instance);
        return instance;
    }

    /**
     * Stands for long work inside a handler: blocks until the engine interrupts the thread (cancel,
     * timeout, lost lease, shutdown) or the process is killed; gives up after an hour.
     */
    static void blockUntilInterrupted() throws InterruptedException {
        new CountDownLatch(1).await(1, TimeUnit.HOURS);
    }

    /**
     * Waits for {@code latch} through interrupts: code the test pauses (a handler, a statement) goes
     * on once the test lets it, whatever the engine meanwhile asks of its thread.
     */
    static void awaitIgnoringInterrupts(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // the engine stops this thread (a lost lease, a shutdown): the paused code finishes first
            }
        }
    }

    /**
     * Waits until a counter reaches {@code expected}: the completer counts an outcome after its
     * statement committed, so a test that saw the status in the database may read the counter first.
     */
    static void awaitCount(java.util.function.LongSupplier counter, long expected) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(10)).until(() -> counter.getAsLong() >= expected);
        org.assertj.core.api.Assertions.assertThat(counter.getAsLong()).isEqualTo(expected);
    }

    static Job awaitStatus(Skiplock skiplock, UUID id, JobStatus status) {
        return await().atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> skiplock.get(id).orElseThrow(), job -> job.status() == status);
    }

    static Job awaitTerminal(Skiplock skiplock, UUID id) {
        return await().atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> skiplock.get(id).orElseThrow(), job -> job.status().isTerminal());
    }
}
