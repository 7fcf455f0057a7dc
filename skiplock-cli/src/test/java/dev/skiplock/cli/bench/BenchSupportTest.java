package dev.skiplock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The benchmarks' waits end at their deadline, not before. */
class BenchSupportTest {
    /**
     * A permit left by an earlier unpark makes one parkNanos return at once: the wait goes on to the
     * deadline. With a single parkNanos (as the sustained mode's window had) it returned at once.
     */
    @Test
    void aWaitWithAPermitLeftStillEndsAtItsDeadline() {
        LockSupport.unpark(Thread.currentThread());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);

        BenchSupport.parkUntil(deadline);

        assertThat(System.nanoTime()).isGreaterThanOrEqualTo(deadline);
    }
}
