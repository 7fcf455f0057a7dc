package dev.skiplock.spring;

import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.ToLongFunction;

/**
 * Publishes {@link Skiplock#metrics()} as Micrometer counters (read at each scrape; no copy kept):
 * {@code skiplock.jobs.claimed}, {@code .succeeded}, {@code .failed}, {@code .retried},
 * {@code .cancelled}, {@code .timed.out}, {@code .adopted}, {@code .resumed}, {@code .released};
 * {@code skiplock.leases.lost}, {@code skiplock.leases.reaped}, {@code skiplock.completions.stale},
 * {@code skiplock.claim.statements}, {@code skiplock.completion.batches}. Counts are this instance's
 * since it was built (see {@link SkiplockMetrics}).
 */
public final class SkiplockMeterBinder implements MeterBinder {
    private final Skiplock skiplock;

    public SkiplockMeterBinder(Skiplock skiplock) {
        this.skiplock = skiplock;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "skiplock.jobs.claimed", "attempts claimed", SkiplockMetrics::claimed);
        counter(registry, "skiplock.jobs.succeeded", "attempts finalized as succeeded", SkiplockMetrics::succeeded);
        counter(registry, "skiplock.jobs.failed", "attempts finalized as failed", SkiplockMetrics::failed);
        counter(registry, "skiplock.jobs.retried", "attempts that ended in a retry or snooze", SkiplockMetrics::retried);
        counter(registry, "skiplock.jobs.cancelled", "attempts finalized as cancelled", SkiplockMetrics::cancelled);
        counter(registry, "skiplock.jobs.timed.out", "attempts finalized as timed out", SkiplockMetrics::timedOut);
        counter(registry, "skiplock.jobs.adopted", "orphaned jobs adopted", SkiplockMetrics::adopted);
        counter(registry, "skiplock.jobs.resumed", "adopted executions resumed, not rerun", SkiplockMetrics::resumed);
        counter(registry, "skiplock.jobs.released", "running jobs given back at shutdown", SkiplockMetrics::released);
        counter(registry, "skiplock.leases.lost", "executions stopped because their lease was gone",
                SkiplockMetrics::leasesLost);
        counter(registry, "skiplock.leases.reaped", "expired leases this instance's reaper cleared",
                SkiplockMetrics::leasesReaped);
        counter(registry, "skiplock.completions.stale", "outcomes rejected by the lease fence",
                SkiplockMetrics::staleCompletions);
        counter(registry, "skiplock.claim.statements", "claim statements that returned jobs",
                SkiplockMetrics::claimStatements);
        counter(registry, "skiplock.completion.batches", "fenced completion statements written",
                SkiplockMetrics::completionBatches);
    }

    private void counter(MeterRegistry registry, String name, String description, ToLongFunction<SkiplockMetrics> value) {
        FunctionCounter.builder(name, skiplock, instance -> value.applyAsLong(instance.metrics()))
                .description(description)
                .register(registry);
    }
}
