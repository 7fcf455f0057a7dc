package dev.skiplock.spring;

import dev.skiplock.Skiplock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Builds a {@link Skiplock} on the application's {@code DataSource} with the {@code skiplock.*}
 * properties and the {@link SkiplockHandler} beans, and around it: {@link SkiplockLifecycle},
 * {@link SkiplockJobs}, {@link SkiplockMeterBinder} (with Micrometer) and the {@code skiplock}
 * health indicator (with Actuator, Boot 3 or Boot 4). Each bean backs off when the application
 * defines its own; {@code skiplock.enabled=false} turns it all off. Only class names of one Boot
 * line are referenced where the other line lacks them.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration", // Boot 3
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"}) // Boot 4
@ConditionalOnClass(Skiplock.class)
@Conditional(SkiplockAutoConfiguration.OneDataSourceOrOwnSkiplock.class)
@ConditionalOnProperty(prefix = "skiplock", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SkiplockProperties.class)
public class SkiplockAutoConfiguration {

    /**
     * A Skiplock to run: the application's one DataSource to build it on, or the application's own
     * {@code Skiplock} bean (as {@link SkiplockCustomizer} suggests for another DataSource), which
     * the lifecycle, {@link SkiplockJobs}, metrics and health then serve. Before, an application with
     * two DataSources (or none) and its own Skiplock got none of them: its worker never started.
     */
    static final class OneDataSourceOrOwnSkiplock extends AnyNestedCondition {
        OneDataSourceOrOwnSkiplock() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnSingleCandidate(DataSource.class)
        static final class OneDataSource {
        }

        @ConditionalOnBean(Skiplock.class)
        static final class OwnSkiplock {
        }
    }

    /**
     * {@code management.health.skiplock.enabled}, or where it is unset {@code
     * management.health.defaults.enabled} (true if unset too): Actuator's rule for its own
     * indicators, whose annotation lives in a package of each Boot line's own.
     */
    static final class HealthIndicatorEnabled implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Environment environment = context.getEnvironment();
            return environment.getProperty("management.health.skiplock.enabled", Boolean.class,
                    environment.getProperty("management.health.defaults.enabled", Boolean.class, true));
        }
    }

    /**
     * Migrates the schema here unless {@code skiplock.migrate=false}; started by {@link SkiplockLifecycle}.
     * Built after the application's database initializers (Flyway, Liquibase, {@code spring.sql.init}):
     * Flyway refuses to migrate a schema that holds tables but no history of its own, as Skiplock's
     * tables made it when they came first.
     */
    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    public Skiplock skiplock(DataSource dataSource, SkiplockProperties properties, ListableBeanFactory beanFactory,
            ObjectProvider<SkiplockCustomizer> customizers) {
        Skiplock.Builder builder = Skiplock.builder().dataSource(dataSource).config(properties.toConfig());
        HandlerBeans.register(builder, beanFactory);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        try {
            return builder.build();
        } catch (IllegalArgumentException refused) {
            String message = String.valueOf(refused.getMessage());
            if (message.startsWith("dataSource:") && message.contains("autocommit")) {
                throw new IllegalStateException("the application's DataSource hands out connections in a transaction"
                        + (dataSource instanceof com.zaxxer.hikari.HikariDataSource
                                ? " (spring.datasource.hikari.auto-commit=false)" : "")
                        + "; Skiplock commits its single statements in"
                        + " autocommit: set it to true, or give Skiplock a DataSource of its own (a Skiplock bean,"
                        + " whose enqueues then do not join the application's transactions)"); // not chained: Spring reports the root cause
            }
            throw refused;
        }
    }

    @Bean
    @ConditionalOnMissingBean
    public SkiplockLifecycle skiplockLifecycle(Skiplock skiplock) {
        return new SkiplockLifecycle(skiplock);
    }

    @Bean
    @ConditionalOnMissingBean
    public SkiplockJobs skiplockJobs(Skiplock skiplock) {
        return new SkiplockJobs(skiplock);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        SkiplockMeterBinder skiplockMeterBinder(Skiplock skiplock) {
            return new SkiplockMeterBinder(skiplock);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.AbstractHealthIndicator")
    @Conditional(HealthIndicatorEnabled.class)
    static class Boot3Health {
        @Bean
        @ConditionalOnMissingBean(name = "skiplockHealthIndicator")
        SkiplockHealthIndicator skiplockHealthIndicator(Skiplock skiplock, SkiplockLifecycle lifecycle) {
            return new SkiplockHealthIndicator(new SkiplockHealth(skiplock, lifecycle));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.AbstractHealthIndicator")
    @ConditionalOnMissingClass("org.springframework.boot.actuate.health.AbstractHealthIndicator") // Boot 3 wins
    @Conditional(HealthIndicatorEnabled.class)
    static class Boot4Health {
        @Bean
        @ConditionalOnMissingBean(name = "skiplockHealthIndicator")
        SkiplockBoot4HealthIndicator skiplockHealthIndicator(Skiplock skiplock, SkiplockLifecycle lifecycle) {
            return new SkiplockBoot4HealthIndicator(new SkiplockHealth(skiplock, lifecycle));
        }
    }
}
