package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * What surrounds a handler on its thread while it runs: its job in SLF4J's MDC ({@link JobMdc}) and
 * its span made current. Entering and leaving never throw: an application's logging backend or
 * context storage that fails is logged, and the job runs and gets its outcome as without it. (A
 * throw here ended the handler's thread with its job still running: its lease kept alive by the
 * heartbeat, its slot taken, for good.) A failure that repeats for every job is logged once per
 * {@link WarningPace#INTERVAL} for each of the four steps.
 */
final class JobThreadContext implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JobThreadContext.class);
    private static final WarningPace MDC_PUT = new WarningPace();
    private static final WarningPace SPAN_ENTERED = new WarningPace();
    private static final WarningPace SPAN_LEFT = new WarningPace();
    private static final WarningPace MDC_CLEARED = new WarningPace();

    private final Job job;
    private final Scope scope;
    /** The MDC was given the job ({@link JobMdc#kept}), so it is cleared. */
    private final boolean mdcPut;

    private JobThreadContext(Job job, Scope scope, boolean mdcPut) {
        this.job = job;
        this.scope = scope;
        this.mdcPut = mdcPut;
    }

    /**
     * Puts {@code job} in the MDC and makes {@code span} current on this thread, as far as each can
     * be. An invalid span (no tracer set up and no trace context to pass on: {@link JobTracing#startOrNone})
     * is not made current: the handler's thread is new, and {@code Span.current()} reads as the
     * invalid span there already.
     */
    static JobThreadContext enter(Job job, Span span) {
        boolean mdcPut = false;
        try {
            if (JobMdc.kept()) {
                mdcPut = true;
                JobMdc.put(job);
            }
        } catch (Throwable e) { // any throwable: see the class comment
            warn(MDC_PUT, "job {}: could not put it in the logging MDC; it runs without: {}{}", job, e);
        }
        Scope scope = Scope.noop();
        try {
            if (span.getSpanContext().isValid()) {
                scope = span.makeCurrent();
            }
        } catch (Throwable e) {
            warn(SPAN_ENTERED, "job {}: could not make its span current; it runs without: {}{}", job, e);
        }
        return new JobThreadContext(job, scope, mdcPut);
    }

    /** Leaves the span's context and clears the MDC; never throws. */
    @Override
    public void close() {
        try {
            scope.close();
        } catch (Throwable e) {
            warn(SPAN_LEFT, "job {}: could not leave its span's context: {}{}", job, e);
        }
        if (!mdcPut) {
            return;
        }
        Throwable clearFailure = null;
        for (String key : JobMdc.KEYS) {
            try {
                MDC.remove(key);
            } catch (Throwable e) {
                clearFailure = e; // each key on its own; one warning per job
            }
        }
        if (clearFailure != null) {
            warn(MDC_CLEARED, "job {}: could not clear the logging MDC: {}{}", job, clearFailure);
        }
    }

    /** A paced warning that cannot throw either: a logging backend whose MDC fails may fail to log too. */
    private static void warn(WarningPace pace, String message, Job job, Throwable failure) {
        try {
            pace.warn(LOG, message, job.id(), Outcomes.describe(failure));
        } catch (Throwable ignored) {
            // nothing left to tell it to; the job goes on
        }
    }
}
