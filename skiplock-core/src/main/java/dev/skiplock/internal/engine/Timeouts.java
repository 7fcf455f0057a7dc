package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops executions whose time is up. The time an execution has left is the database's (what its
 * first worker left, for an adopted one); from then on it is counted on the worker's
 * {@link Clock}: a timer fires when it should be due and stops the execution once the clock says
 * so, or waits again for what the clock says is left (a clock a test moves by hand, or a wall
 * clock set back).
 */
final class Timeouts {
    private static final Logger LOG = LoggerFactory.getLogger(Timeouts.class);
    /**
     * How soon a check runs again that failed, or that found the handler's transaction committing
     * the job's completion (which may yet roll back).
     */
    static final long RECHECK_MILLIS = 1000;

    private final ScheduledExecutorService timers;
    private final Clock clock;
    private final Stopper stopper;

    /** A job's time limit per attempt: its own, else the instance's default, in whole seconds; null for none. */
    static Duration limitOf(Job job, Duration defaultTimeout) {
        return job.timeoutSeconds() != null ? Duration.ofSeconds(job.timeoutSeconds())
                : defaultTimeout == null ? null : Duration.ofSeconds(defaultTimeout.toSeconds());
    }

    Timeouts(ScheduledExecutorService timers, Clock clock, Stopper stopper) {
        this.timers = timers;
        this.clock = clock;
        this.stopper = stopper;
    }

    /** Times {@code execution} out once {@code left} has passed on the clock; cancelled by its outcome. */
    void schedule(Execution execution, Duration left) {
        arm(execution, clock.instant().plus(left), left.toMillis());
    }

    private void arm(Execution execution, Instant deadline, long delayMillis) {
        execution.setTimeout(timers.schedule(() -> check(execution, deadline), Math.max(0, delayMillis),
                TimeUnit.MILLISECONDS));
    }

    private void check(Execution execution, Instant deadline) {
        try {
            long leftMillis = Duration.between(clock.instant(), deadline).toMillis();
            if (leftMillis > 0) {
                if (mayRunOn(execution)) {
                    arm(execution, deadline, leftMillis);
                }
                return;
            }
            stopper.stop(execution, Execution.StopReason.TIMEOUT);
            if (mayRunOn(execution)) {
                // no stop ends a completion being committed in the handler's transaction: should
                // that roll back, the handler runs on, and its time is still up
                arm(execution, deadline, RECHECK_MILLIS);
            }
        } catch (RuntimeException | Error e) {
            // Checked again, whatever failed (an Error too): a timeout dropped here would let the job
            // run on past its limit, its lease kept alive by the heartbeat.
            LOG.warn("checking the timeout of job {} failed; checking again in {} ms: {}", execution.job().id(),
                    RECHECK_MILLIS, Timers.reason(e));
            checkAgain(execution, deadline);
        }
    }

    /** Running, or committing its completion in the handler's transaction (which may yet roll back). */
    private static boolean mayRunOn(Execution execution) {
        return execution.isRunning() || execution.isCommitting();
    }

    private void checkAgain(Execution execution, Instant deadline) {
        try {
            if (mayRunOn(execution)) { // an execution that ended cancelled its timeout: none is armed again
                arm(execution, deadline, RECHECK_MILLIS);
            }
        } catch (RuntimeException e) {
            // the timers were shut down: the worker is closing, and its stop ends the execution
            LOG.debug("timeout of job {} not checked again: {}", execution.job().id(), e.toString());
        }
    }
}
