package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import dev.skiplock.internal.store.Completion;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;

/**
 * Each attempt runs in a span (OpenTelemetry API only: spans reach the SDK or agent the application
 * configured, or nowhere). The trace context stored at enqueue ({@code traceparent}) is the first
 * attempt's parent, and a link of every later one: a retry is a new operation caused by the same
 * request. Attributes: {@code skiplock.job.id}, {@code .kind}, {@code .queue}, {@code .attempt},
 * {@code .outcome}.
 */
public final class JobTracing {
    static final String ID = "skiplock.job.id";
    static final String KIND = "skiplock.job.kind";
    static final String QUEUE = "skiplock.job.queue";
    static final String ATTEMPT = "skiplock.job.attempt";
    static final String OUTCOME = "skiplock.job.outcome";

    private static final String SCOPE = "dev.skiplock";
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JobTracing.class);
    /** A tracer that fails, fails for every job: its warnings are paced. */
    private static final WarningPace START_FAILED = new WarningPace();
    private static final WarningPace END_FAILED = new WarningPace();

    /** What OpenTelemetry's no-op instance, and {@code GlobalOpenTelemetry} until one is set up, hand out. */
    private static final io.opentelemetry.api.trace.Tracer NO_OP_TRACER = OpenTelemetry.noop().getTracer(SCOPE);

    /** The given instance's tracer, or null: {@code GlobalOpenTelemetry}'s, looked up when a span starts. */
    private final io.opentelemetry.api.trace.Tracer tracer;

    /** {@code openTelemetry} null: the global one, looked up at each span, so an application may set it up after building Skiplock. */
    public JobTracing(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry == null ? null : openTelemetry.getTracer(SCOPE);
    }

    /**
     * Starts the span of one execution of {@code job} (not yet current), or returns an invalid span
     * when the application's tracer throws: its job runs and gets its outcome all the same (a
     * handler thread that died here left its job running, its lease kept alive, for good).
     */
    Span startOrNone(Job job) {
        try {
            return start(job);
        } catch (Throwable e) {
            START_FAILED.warn(LOG, "job {}: the tracer failed to start its span; the job runs without one: {}{}",
                    job.id(), Outcomes.describe(e));
            return Span.getInvalid();
        }
    }

    /**
     * Takes the first-use costs of starting and ending a span ({@link Warmup}): the same code on
     * OpenTelemetry's no-op tracer, which exports nothing. Not the global one: looking it up before
     * the application set it would fix it to the no-op for good.
     */
    static void rehearse(Job job) {
        Span span = start(OpenTelemetry.noop().getTracer(SCOPE), job);
        span.setAttribute(OUTCOME, "succeeded");
        span.end();
    }

    /**
     * Starts the span of one execution of {@code job} (not yet current). With OpenTelemetry's no-op
     * tracer (no SDK or agent set up) and no trace context of its enqueue to pass on, that span is
     * the invalid span whatever is set on it: it is returned as such, and no attribute is made for
     * it (issue #12: the id's text and the span's name, per job, and their code, for nobody).
     */
    private Span start(Job job) {
        io.opentelemetry.api.trace.Tracer spans = tracer != null ? tracer
                : io.opentelemetry.api.GlobalOpenTelemetry.getTracer(SCOPE);
        if (spans == NO_OP_TRACER && job.traceparent() == null) {
            return Span.getInvalid();
        }
        return start(spans, job);
    }

    private static Span start(io.opentelemetry.api.trace.Tracer spans, Job job) {
        SpanBuilder span = spans.spanBuilder("skiplock.job " + job.kind()).setSpanKind(SpanKind.CONSUMER)
                .setAttribute(ID, job.id().toString()).setAttribute(KIND, job.kind())
                .setAttribute(QUEUE, job.queue()).setAttribute(ATTEMPT, (long) job.attempt());
        SpanContext enqueued = enqueuedContext(job.traceparent());
        if (enqueued.isValid() && job.attempt() <= 1) {
            span.setParent(Context.root().with(Span.wrap(enqueued)));
        } else {
            span.setNoParent();
            if (enqueued.isValid()) {
                span.addLink(enqueued);
            }
        }
        return span.startSpan();
    }

    /**
     * As {@link #end}; a tracer that throws is logged, and the outcome is written all the same. An
     * invalid span records nothing: there is nothing to end.
     */
    static void endOrWarn(Span span, Execution execution, Completion completion, boolean decidedByHandler) {
        try {
            if (span.getSpanContext().isValid()) {
                end(span, execution, completion, decidedByHandler);
            }
        } catch (Throwable e) {
            END_FAILED.warn(LOG, "job {}: the tracer failed to end its span: {}{}", execution.job().id(),
                    Outcomes.describe(e));
        }
    }

    /** Ends the span with the execution's outcome ({@code null}: the handler completed its job in its transaction). */
    private static void end(Span span, Execution execution, Completion completion, boolean decidedByHandler) {
        String outcome = decidedByHandler ? outcomeOf(execution, completion)
                : execution.stopReason().name().toLowerCase(java.util.Locale.ROOT);
        span.setAttribute(OUTCOME, outcome);
        if (completion != null && decidedByHandler && completion.error() != null
                && completion.status() != JobStatus.SUCCEEDED) {
            span.setStatus(StatusCode.ERROR, completion.error());
        }
        span.end();
    }

    private static String outcomeOf(Execution execution, Completion completion) {
        if (completion == null) {
            return "succeeded";
        }
        if (completion.status() != JobStatus.QUEUED) {
            return completion.status().wireName();
        }
        if (execution.suspended()) {
            return "waiting";
        }
        return completion.extraAttempts() > 0 ? "snoozed" : "retried";
    }

    /** The span context a W3C {@code traceparent} names (validated at enqueue); invalid if there is none. */
    static SpanContext enqueuedContext(String traceparent) {
        if (traceparent == null || traceparent.length() != 55) {
            return SpanContext.getInvalid();
        }
        return SpanContext.createFromRemoteParent(traceparent.substring(3, 35), traceparent.substring(36, 52),
                TraceFlags.fromHex(traceparent, 53), TraceState.getDefault());
    }

    /** The {@code traceparent} of the span current on this thread (the enqueuing code's), or null. */
    public static String currentTraceparent() {
        SpanContext current = Span.current().getSpanContext();
        if (!current.isValid()) {
            return null;
        }
        return "00-" + current.getTraceId() + "-" + current.getSpanId() + "-" + current.getTraceFlags().asHex();
    }
}
