package dev.skiplock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skiplock.SkiplockException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** A handler's call runs again after a lost connection only, and only for as long as it may. */
class HandlerCallsTest {
    private static final java.util.function.BooleanSupplier NOT_STOPPED = () -> false;

    private static SkiplockException failure(String sqlState) {
        return new SkiplockException("postgres statement 'count_logs' failed", new SQLException("test", sqlState));
    }

    /** Fails its first {@code failures} runs with {@code failure}, then answers 42. */
    private static Supplier<Long> failingFirst(int failures, RuntimeException failure, AtomicInteger runs) {
        return () -> {
            if (runs.incrementAndGet() <= failures) {
                throw failure;
            }
            return 42L;
        };
    }

    @Test
    void aCallThatLostItsConnectionRunsAgain() {
        for (String lost : new String[] {"57P01", "57P03", "08006", "08003"}) {
            AtomicInteger runs = new AtomicInteger();
            assertThat(HandlerCalls.retriedOnConnectionLoss(Duration.ofSeconds(30), NOT_STOPPED,
                    failingFirst(2, failure(lost), runs)))
                    .as(lost).isEqualTo(42L);
            assertThat(runs.get()).as(lost).isEqualTo(3);
        }
    }

    @Test
    void anyOtherFailureEndsTheCallAtOnce() {
        SkiplockException dataError = failure("22P05");
        // HikariCP's timeout while the database is up: no SQLState (a down database's carries its connect failure's)
        SkiplockException busyPool = new SkiplockException("no connection", new java.sql.SQLTransientConnectionException(
                "skiplock - Connection is not available, request timed out after 30000ms"));
        for (SkiplockException other : new SkiplockException[] {dataError, busyPool}) {
            AtomicInteger runs = new AtomicInteger();
            assertThatThrownBy(() -> HandlerCalls.retriedOnConnectionLoss(Duration.ofSeconds(30), NOT_STOPPED,
                    failingFirst(1, other, runs))).isSameAs(other);
            assertThat(runs.get()).as(other.getCause().toString()).isEqualTo(1);
        }
    }

    @Test
    void aLossThatOutlastsTheBudgetFailsTheCall() {
        AtomicInteger runs = new AtomicInteger();
        SkiplockException lost = failure("57P01");
        // 50 ms is the first backoff: a budget below it allows no second run
        assertThatThrownBy(() -> HandlerCalls.retriedOnConnectionLoss(Duration.ofMillis(10), NOT_STOPPED,
                failingFirst(Integer.MAX_VALUE, lost, runs))).isSameAs(lost);
        assertThat(runs.get()).isEqualTo(1);
    }

    @Test
    void aStoppedExecutionStopsRetrying() {
        AtomicInteger runs = new AtomicInteger();
        SkiplockException lost = failure("08006");
        Thread.currentThread().interrupt(); // as a stop leaves the handler's thread after its store call
        try {
            assertThatThrownBy(() -> HandlerCalls.retriedOnConnectionLoss(Duration.ofSeconds(30), NOT_STOPPED,
                    failingFirst(Integer.MAX_VALUE, lost, runs))).isSameAs(lost);
            assertThat(Thread.currentThread().isInterrupted()).as("the stop is kept").isTrue();
            assertThat(runs.get()).isEqualTo(1);
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aStopSeenOnAThreadNoStopInterruptsEndsTheRetries() {
        AtomicInteger runs = new AtomicInteger();
        SkiplockException lost = failure("08006");
        // a thread of the handler's own: the stop is a flag it reads, no interrupt
        assertThatThrownBy(() -> HandlerCalls.retriedOnConnectionLoss(Duration.ofSeconds(30), () -> runs.get() >= 2,
                failingFirst(Integer.MAX_VALUE, lost, runs))).isSameAs(lost);
        assertThat(runs.get()).as("sent again until the stop was seen").isEqualTo(2);
    }
}
