package dev.skiplock.spring;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Spring Boot 4's health indicator {@code skiplock} (Boot 4 moved the health API to
 * {@code org.springframework.boot.health.contributor}); the check is {@link SkiplockHealth}'s.
 */
final class SkiplockBoot4HealthIndicator extends AbstractHealthIndicator {
    private final SkiplockHealth health;

    SkiplockBoot4HealthIndicator(SkiplockHealth health) {
        super("Skiplock health check failed");
        this.health = health;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        SkiplockHealth.Report report = health.check();
        (report.up() ? builder.up() : builder.down()).withDetails(report.details());
    }
}
