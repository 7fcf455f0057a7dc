package dev.skiplock.spring;

import dev.skiplock.Skiplock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Publishes the instance's Micrometer meters ({@link Skiplock#meterRegistry()}: queue depth, wait
 * and run time, attempts, outcomes with {@code queue} and {@code kind} tags, leases, wake-ups,
 * batch sizes; README "Metrics") to each registry Spring Boot binds: the registry joins the
 * instance's composite, so meters created before and after both reach it.
 */
public final class SkiplockMeterBinder implements MeterBinder {
    private final Skiplock skiplock;

    public SkiplockMeterBinder(Skiplock skiplock) {
        this.skiplock = skiplock;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        skiplock.meterRegistry().add(registry);
    }
}
