package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * OpenTelemetry (API only in Skiplock; the SDK's in-memory exporter here): the trace context current
 * at enqueue is stored with the job; its first attempt's span is a child of it, later attempts'
 * spans link to it; the attributes name the job and the attempt's outcome.
 */
abstract class TracingContract extends ContractBase {
    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk openTelemetry = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
            .build();

    @AfterEach
    void closeSdk() {
        openTelemetry.close();
    }

    private List<SpanData> jobSpans(int count) {
        return await().atMost(WAIT).until(() -> exporter.getFinishedSpanItems().stream()
                .filter(span -> span.getName().startsWith("skiplock.job ")).toList(), spans -> spans.size() >= count);
    }

    /**
     * A worker closed while a handler that has returned ends its span (an exporter that takes its
     * time, as SimpleSpanProcessor exports inside Span.end) waits for that handler's outcome: the
     * job ends succeeded. Before, the close counted only handlers running or committing, stopped the
     * completer, and the outcome was handed to nobody: the job stayed running until its lease
     * lapsed, and a reaper's adoption then failed its last attempt (lifecycle reviewer).
     */
    @Test
    void aCloseWaitsForTheOutcomeOfAHandlerEndingItsSpan() throws Exception {
        java.util.concurrent.CountDownLatch exporting = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch mayExport = new java.util.concurrent.CountDownLatch(1);
        io.opentelemetry.sdk.trace.export.SpanExporter slow = new io.opentelemetry.sdk.trace.export.SpanExporter() {
            @Override
            public io.opentelemetry.sdk.common.CompletableResultCode export(java.util.Collection<SpanData> spans) {
                if (spans.stream().anyMatch(span -> span.getName().startsWith("skiplock.job "))) {
                    exporting.countDown();
                    awaitIgnoringInterrupts(mayExport);
                }
                return io.opentelemetry.sdk.common.CompletableResultCode.ofSuccess();
            }

            @Override
            public io.opentelemetry.sdk.common.CompletableResultCode flush() {
                return io.opentelemetry.sdk.common.CompletableResultCode.ofSuccess();
            }

            @Override
            public io.opentelemetry.sdk.common.CompletableResultCode shutdown() {
                return io.opentelemetry.sdk.common.CompletableResultCode.ofSuccess();
            }
        };
        try (OpenTelemetrySdk slowSdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(slow)).build()).build()) {
            Skiplock worker = started(builder(config -> config.queue("default", 1).shutdownTimeout(java.time.Duration.ofMinutes(1)))
                    .openTelemetry(slowSdk).handler("traced", Object.class, context -> JobOutcome.complete()));
            Job job = worker.enqueue(JobRequest.of("traced", null).withMaxAttempts(1));
            assertThat(exporting.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();

            // the export goes on until the close has ended or waits for the handler's outcome
            Thread closing = Thread.ofPlatform().name("closing").start(worker::close);
            await().atMost(WAIT).until(() -> !closing.isAlive() || java.util.Arrays.stream(closing.getStackTrace())
                    .anyMatch(frame -> frame.getMethodName().equals("awaitHandlers")));
            mayExport.countDown();
            closing.join(WAIT.toMillis());

            assertThat(client().get(job.id()).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
        }
    }

    @Test
    void theFirstAttemptIsAChildOfTheEnqueuingSpanAndARetryLinksToIt() throws Exception {
        Skiplock skiplock = started(builder(config -> config.queue("default", 1)).openTelemetry(openTelemetry)
                .handler("traced", Object.class, context -> context.attempt() == 1
                        ? JobOutcome.fail("first attempt fails") : JobOutcome.complete()));
        assertThat(exporter.getFinishedSpanItems()).as("the warm-up's span is on the no-op tracer, not the application's")
                .isEmpty();
        Span request = openTelemetry.getTracer("test").spanBuilder("POST /orders").startSpan();
        Job job;
        try (Scope scope = request.makeCurrent()) {
            job = skiplock.enqueue(JobRequest.of("traced", null).withMaxAttempts(2));
        } finally {
            request.end();
        }
        SpanContext enqueued = request.getSpanContext();

        assertThat(job.traceparent()).isEqualTo("00-" + enqueued.getTraceId() + "-" + enqueued.getSpanId() + "-"
                + enqueued.getTraceFlags().asHex());
        assertThat(skiplock.awaitTerminal(job.id(), WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);
        List<SpanData> attempts = jobSpans(2);
        SpanData first = attempts.get(0);
        SpanData retry = attempts.get(1);
        assertThat(first.getName()).isEqualTo("skiplock.job traced");
        assertThat(first.getTraceId()).isEqualTo(enqueued.getTraceId());
        assertThat(first.getParentSpanId()).isEqualTo(enqueued.getSpanId());
        assertThat(first.getAttributes().get(AttributeKey.stringKey("skiplock.job.id"))).isEqualTo(job.id().toString());
        assertThat(first.getAttributes().get(AttributeKey.stringKey("skiplock.job.kind"))).isEqualTo("traced");
        assertThat(first.getAttributes().get(AttributeKey.stringKey("skiplock.job.queue"))).isEqualTo("default");
        assertThat(first.getAttributes().get(AttributeKey.longKey("skiplock.job.attempt"))).isEqualTo(1L);
        assertThat(first.getAttributes().get(AttributeKey.stringKey("skiplock.job.outcome"))).isEqualTo("retried");
        assertThat(first.getStatus().getDescription()).isEqualTo("first attempt fails");
        assertThat(retry.getTraceId()).isNotEqualTo(enqueued.getTraceId());
        assertThat(retry.getParentSpanContext().isValid()).isFalse();
        assertThat(retry.getLinks()).extracting(link -> link.getSpanContext().getSpanId()).containsExactly(enqueued.getSpanId());
        assertThat(retry.getAttributes().get(AttributeKey.longKey("skiplock.job.attempt"))).isEqualTo(2L);
        assertThat(retry.getAttributes().get(AttributeKey.stringKey("skiplock.job.outcome"))).isEqualTo("succeeded");
    }

    @Test
    void anInMemoryJobRunsInASpanTooAndAJobWithoutContextStartsATrace() throws Exception {
        Skiplock skiplock = started(builder(config -> config.queue("default", 1)).openTelemetry(openTelemetry)
                .handler("traced", Object.class, context -> JobOutcome.complete()));

        Job durable = skiplock.enqueue(JobRequest.of("traced", null));
        Job inMemory = skiplock.enqueue(JobRequest.of("traced", null).withDurable(false));
        skiplock.awaitTerminal(durable.id(), WAIT);
        skiplock.awaitTerminal(inMemory.id(), WAIT);

        assertThat(durable.traceparent()).isNull();
        assertThat(jobSpans(2)).extracting(span -> span.getAttributes().get(AttributeKey.stringKey("skiplock.job.id")))
                .containsExactlyInAnyOrder(durable.id().toString(), inMemory.id().toString());
        assertThat(jobSpans(2)).allSatisfy(span -> assertThat(span.getParentSpanContext().isValid()).isFalse());
    }

    /**
     * Without a tracer (OpenTelemetry's no-op), a job enqueued under a trace context still runs with
     * it current, so the handler's own calls carry it on; a job enqueued under none runs with none,
     * and its handler sees the invalid span. (The no-op tracer's executions skip the span's work, issue
     * #12: this holds what they must still do.)
     */
    @Test
    void withoutATracerTheEnqueuingContextIsStillCurrentInTheHandler() throws Exception {
        java.util.Map<java.util.UUID, SpanContext> seen = new java.util.concurrent.ConcurrentHashMap<>();
        Skiplock skiplock = started(builder(config -> config.queue("default", 1))
                .openTelemetry(io.opentelemetry.api.OpenTelemetry.noop())
                .handler("traced", Object.class, context -> {
                    seen.put(context.job().id(), Span.current().getSpanContext());
                    return JobOutcome.complete();
                }));
        SpanContext request = SpanContext.create("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331",
                io.opentelemetry.api.trace.TraceFlags.getSampled(), io.opentelemetry.api.trace.TraceState.getDefault());
        Job traced;
        try (Scope scope = Span.wrap(request).makeCurrent()) {
            traced = skiplock.enqueue(JobRequest.of("traced", null));
        }
        Job untraced = skiplock.enqueue(JobRequest.of("traced", null));
        Job inMemory;
        try (Scope scope = Span.wrap(request).makeCurrent()) {
            inMemory = skiplock.enqueue(JobRequest.of("traced", null).withDurable(false));
        }
        for (Job job : List.of(traced, untraced, inMemory)) {
            assertThat(skiplock.awaitTerminal(job.id(), WAIT).status()).isEqualTo(JobStatus.SUCCEEDED);
        }

        assertThat(traced.traceparent()).isEqualTo("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        assertThat(seen.get(traced.id()).getTraceId()).isEqualTo(request.getTraceId());
        assertThat(seen.get(traced.id()).getSpanId()).isEqualTo(request.getSpanId());
        assertThat(seen.get(inMemory.id()).getTraceId()).isEqualTo(request.getTraceId());
        assertThat(untraced.traceparent()).isNull();
        assertThat(seen.get(untraced.id()).isValid()).isFalse();
    }
}
