package dev.skiplock.spring;

import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/** Spring Boot 3's health indicator {@code skiplock} (see {@link SkiplockHealth} for what it checks). */
final class SkiplockHealthIndicator extends AbstractHealthIndicator {
    private final SkiplockHealth health;

    SkiplockHealthIndicator(SkiplockHealth health) {
        super("Skiplock health check failed");
        this.health = health;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        SkiplockHealth.Report report = health.check();
        (report.up() ? builder.up() : builder.down()).withDetails(report.details());
    }
}
