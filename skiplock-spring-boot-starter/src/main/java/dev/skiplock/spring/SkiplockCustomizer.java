package dev.skiplock.spring;

import dev.skiplock.Skiplock;

/**
 * A bean that adjusts the {@link Skiplock.Builder} before the auto-configured instance is built,
 * after the properties and handler beans are applied: an execution hook, a kind's own retry policy.
 * The data source and config are the starter's; replace the {@code Skiplock} bean to choose them.
 */
@FunctionalInterface
public interface SkiplockCustomizer {
    void customize(Skiplock.Builder builder);
}
