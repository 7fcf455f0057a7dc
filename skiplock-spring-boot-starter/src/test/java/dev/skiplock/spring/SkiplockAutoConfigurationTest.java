package dev.skiplock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.skiplock.Job;
import dev.skiplock.JobHandler;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockClient;
import dev.skiplock.SkiplockConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/** The starter on a SQLite file: properties, handler beans, transactional enqueue, metrics, health, shutdown. */
class SkiplockAutoConfigurationTest {
    /** What Skiplock's own SQLite pool sets (SqliteDriver): an application's pool needs the same. */
    private static final String SQLITE_SETTINGS = "?journal_mode=WAL&busy_timeout=10000&transaction_mode=IMMEDIATE"
            + "&foreign_keys=true&recursive_triggers=true";

    record Greeting(String name) {
    }

    @Component
    @SkiplockHandler(kind = "greet", args = Greeting.class)
    static class GreetHandler implements JobHandler<Greeting> {
        @Override
        public JobOutcome handle(dev.skiplock.JobContext<Greeting> context) {
            return JobOutcome.complete(java.util.Map.of("hello", context.args().name()));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class HandlerMethods {
        /** A handler declared by a {@code @Bean} method, which may also enqueue follow-up jobs. */
        @Bean
        @SkiplockHandler(kind = "wave", args = Greeting.class)
        JobHandler<Greeting> waveHandler(SkiplockJobs jobs) {
            return context -> {
                jobs.enqueue(JobRequest.of("greet", context.args()));
                return JobOutcome.complete();
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Transactions {
        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }
    }

    /** Blocks until interrupted: the context closes while it runs. */
    @Component
    @SkiplockHandler(kind = "block", args = Greeting.class)
    static class BlockingHandler implements JobHandler<Greeting> {
        final CountDownLatch started = new CountDownLatch(1);

        @Override
        public JobOutcome handle(dev.skiplock.JobContext<Greeting> context) throws InterruptedException {
            started.countDown();
            new CountDownLatch(1).await();
            return JobOutcome.complete();
        }
    }

    /** Records the executions whose outcome Skiplock reports durable: it does so to resumable handlers only. */
    @Component
    @SkiplockHandler(kind = "resumable", args = Greeting.class)
    static class Resumable implements dev.skiplock.ResumableHandler<Greeting> {
        final java.util.Set<UUID> completed = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @Override
        public JobOutcome handle(dev.skiplock.JobContext<Greeting> context) {
            return JobOutcome.complete();
        }

        @Override
        public java.util.Optional<JobOutcome> resume(dev.skiplock.JobContext<Greeting> context) {
            return java.util.Optional.empty();
        }

        @Override
        public void completed(UUID jobId, UUID executionId) {
            completed.add(jobId);
        }
    }

    static class Unannotated implements JobHandler<Greeting> {
        @Override
        public JobOutcome handle(dev.skiplock.JobContext<Greeting> context) {
            return JobOutcome.complete();
        }
    }

    /** A handler bean behind a scoped proxy: Spring names both the proxy and its target as JobHandlers. */
    @Component
    @org.springframework.context.annotation.Scope(value = "prototype",
            proxyMode = org.springframework.context.annotation.ScopedProxyMode.TARGET_CLASS)
    @SkiplockHandler(kind = "scoped", args = Greeting.class)
    static class ScopedHandler implements JobHandler<Greeting> {
        @Override
        public JobOutcome handle(dev.skiplock.JobContext<Greeting> context) {
            return JobOutcome.complete();
        }
    }

    @Component
    @SkiplockHandler(kind = "greet", args = Greeting.class)
    static class SecondGreetHandler extends GreetHandler {
    }

    @Configuration(proxyBeanMethods = false)
    static class ScopedMethod {
        /** Its annotation sits on the target's definition, not on the proxy's. */
        @Bean
        @org.springframework.context.annotation.Scope(value = "prototype",
                proxyMode = org.springframework.context.annotation.ScopedProxyMode.INTERFACES)
        @SkiplockHandler(kind = "scoped.method", args = Greeting.class)
        JobHandler<Greeting> scopedMethod() {
            return context -> JobOutcome.complete();
        }
    }

    /** Declares args of another type than the handler takes. */
    @Component
    @SkiplockHandler(kind = "mistyped", args = String.class)
    static class MistypedHandler implements JobHandler<Greeting> {
        @Override
        public JobOutcome handle(dev.skiplock.JobContext<Greeting> context) {
            return JobOutcome.complete();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MistypedMethod {
        @Bean
        @SkiplockHandler(kind = "mistyped.method", args = String.class)
        JobHandler<Greeting> mistypedMethod() {
            return context -> JobOutcome.complete();
        }
    }

    @TempDir
    Path directory;

    private String url() {
        return "jdbc:sqlite:" + directory.resolve("app.db");
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SkiplockAutoConfiguration.class))
                .withBean(DataSource.class, () -> {
                    HikariDataSource pool = new HikariDataSource();
                    pool.setJdbcUrl(url() + SQLITE_SETTINGS);
                    return pool;
                })
                .withUserConfiguration(Transactions.class)
                .withPropertyValues("skiplock.poll-interval=100ms");
    }

    @Test
    void propertiesUseTheServerConfigKeysAndTheWorkerFlagsNames() {
        runner().withPropertyValues("skiplock.queues.mail.concurrency=3", "skiplock.queues.default.concurrency=8",
                "skiplock.lease=45s", "skiplock.heartbeat=5s", "skiplock.reaper-interval=20s",
                "skiplock.shutdown-timeout=2s", "skiplock.retention.finished=2d", "skiplock.retention.prune-interval=5m",
                "skiplock.default-max-attempts=9", "skiplock.worker-id=web-1").run(context -> {
                    SkiplockConfig config = context.getBean(Skiplock.class).config();
                    assertThat(config.queues()).containsEntry("mail", 3).containsEntry("default", 8).hasSize(2);
                    assertThat(config.leaseTtl()).isEqualTo(Duration.ofSeconds(45));
                    assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(config.reaperInterval()).isEqualTo(Duration.ofSeconds(20));
                    assertThat(config.pollInterval()).isEqualTo(Duration.ofMillis(100));
                    assertThat(config.shutdownTimeout()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(config.retention()).isEqualTo(Duration.ofDays(2));
                    assertThat(config.pruneInterval()).isEqualTo(Duration.ofMinutes(5));
                    assertThat(config.defaultMaxAttempts()).isEqualTo(9);
                    assertThat(config.workerId()).isEqualTo("web-1");
                });
    }

    /**
     * A queue name with a dot binds in brackets; without them Spring reads queue "mail" and a key
     * "high.concurrency" it cannot place, which now stops the context naming the key (before, queue
     * mail.high was silently left unserved, and a queue "mail" served instead).
     */
    /** Before, Spring read a bare number as milliseconds: running jobs got 30 ms at shutdown. */
    @Test
    void aBareNumberIsSecondsAsInTheFlags() {
        runner().withPropertyValues("skiplock.shutdown-timeout=30", "skiplock.poll-interval=2",
                "skiplock.retention.prune-interval=120").run(context -> {
                    SkiplockConfig config = context.getBean(Skiplock.class).config();
                    assertThat(config.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(config.pollInterval()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(config.pruneInterval()).isEqualTo(Duration.ofSeconds(120));
                });
    }

    @Test
    void aQueueNameWithADotBindsInBracketsAndIsRefusedWithoutThem() {
        runner().withPropertyValues("skiplock.queues[mail.high].concurrency=3").run(context ->
                assertThat(context.getBean(Skiplock.class).config().queues()).containsEntry("mail.high", 3).hasSize(1));
        runner().withPropertyValues("skiplock.queues.mail.high.concurrency=3").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("skiplock.queues.mail.high.concurrency"));
    }

    /** A value SkiplockConfig refuses is named by its property (before: by the Java field, heartbeatInterval). */
    @Test
    void aRefusedValueIsNamedByItsProperty() {
        runner().withPropertyValues("skiplock.heartbeat=40s").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageStartingWith("skiplock.heartbeat: must be shorter than skiplock.lease"));
        runner().withPropertyValues("skiplock.queues.mail.concurrency=0").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageStartingWith("skiplock.queues.mail.concurrency: must be between 1 and "));
        runner().withPropertyValues("skiplock.queues[mail.high].concurrency=0").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageStartingWith("skiplock.queues[mail.high].concurrency: "));
        runner().withPropertyValues("skiplock.queues[bad queue].concurrency=1").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageStartingWith("skiplock.queues[bad queue]: "));
    }

    /**
     * A context stopped and started again goes on without a worker, as SkiplockLifecycle says: a
     * closed Skiplock does not start again (before, the start threw "this Skiplock instance is closed").
     */
    @Test
    void aContextStoppedAndStartedAgainGoesOnWithoutAWorker() {
        runner().withPropertyValues("skiplock.queues.default.concurrency=1").run(context -> {
            SkiplockLifecycle lifecycle = context.getBean(SkiplockLifecycle.class);
            assertThat(lifecycle.isRunning()).isTrue();
            context.stop();
            context.start();
            assertThat(lifecycle.isRunning()).isFalse();
        });
    }

    @Test
    void theBuildDescribesEveryPropertyForIdeCompletion() throws Exception {
        try (var metadata = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            String json = new String(metadata.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(json).contains("\"skiplock.queues\"", "\"skiplock.lease\"", "\"skiplock.retention.finished\"",
                    "\"skiplock.shutdown-timeout\"", "How long a claim stays valid without a heartbeat.");
        }
    }

    @Test
    void theDefaultsAreSkiplockConfigsOwn() {
        SkiplockConfig starter = new SkiplockProperties().toConfig();
        SkiplockConfig core = SkiplockConfig.builder().build();
        assertThat(starter).usingRecursiveComparison().ignoringFields("workerId", "clock").isEqualTo(core);
    }

    @Test
    void handlerBeansRunTheirKindsAndMayEnqueueThroughTheStarter() {
        runner().withUserConfiguration(GreetHandler.class, HandlerMethods.class)
                .withPropertyValues("skiplock.queues.default.concurrency=2").run(context -> {
                    Skiplock skiplock = context.getBean(Skiplock.class);
                    Job wave = skiplock.enqueue(JobRequest.of("wave", new Greeting("Ada")));
                    assertThat(skiplock.awaitTerminal(wave.id(), Duration.ofMinutes(1)).status())
                            .isEqualTo(JobStatus.SUCCEEDED);
                    await().atMost(Duration.ofMinutes(1)).until(() -> skiplock.list(dev.skiplock.JobQuery.all()
                            .withStatus(JobStatus.SUCCEEDED)).jobs().size() == 2);
                });
    }

    /** Before, the proxy and its target both registered kind "scoped", and the context failed to start. */
    @Test
    void aHandlerBeanBehindAScopedProxyRunsItsKind() {
        runner().withUserConfiguration(ScopedHandler.class, ScopedMethod.class)
                .withPropertyValues("skiplock.queues.default.concurrency=1").run(context -> {
                    Skiplock skiplock = context.getBean(Skiplock.class);
                    for (String kind : java.util.List.of("scoped", "scoped.method")) {
                        Job job = skiplock.enqueue(JobRequest.of(kind, new Greeting("Ada")));
                        assertThat(skiplock.awaitTerminal(job.id(), Duration.ofMinutes(1)).status()).as(kind)
                                .isEqualTo(JobStatus.SUCCEEDED);
                    }
                });
    }

    /** Two beans of one kind are named (before: the library's "already registered", naming neither). */
    @Test
    void twoHandlerBeansOfOneKindAreRefusedNamingBoth() {
        runner().withUserConfiguration(GreetHandler.class, SecondGreetHandler.class).run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("GreetHandler' and '").hasMessageContaining("SecondGreetHandler'")
                        .hasMessageContaining("kind 'greet'"));
    }

    /** Before, the context started, and every job of the kind failed with a ClassCastException. */
    @Test
    void argsOfAnotherTypeThanTheHandlerTakesAreRefusedAtTheStart() {
        runner().withUserConfiguration(MistypedHandler.class).run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("is a JobHandler<" + Greeting.class.getName() + ">")
                        .hasMessageContaining("args = java.lang.String"));
        runner().withUserConfiguration(MistypedMethod.class).run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("bean 'mistypedMethod' is a JobHandler<" + Greeting.class.getName() + ">"));
    }

    /** A pool that starts its connections in a transaction is refused naming Spring's property. */
    @Test
    void aPoolWithoutAutocommitIsRefusedNamingTheSpringProperty() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SkiplockAutoConfiguration.class))
                .withBean(DataSource.class, () -> {
                    HikariDataSource pool = new HikariDataSource();
                    pool.setJdbcUrl(url() + SQLITE_SETTINGS);
                    pool.setAutoCommit(false);
                    return pool;
                }).run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                .hasMessageContaining("spring.datasource.hikari.auto-commit"));
    }

    @Test
    void aMissingRequestIsRefusedNamingIt() {
        runner().run(context -> assertThatThrownBy(() -> context.getBean(SkiplockJobs.class).enqueue(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("request:"));
    }

    /** Before, every bean was registered as a plain handler: an adopter never resumed its execution, nor heard of its end. */
    @Test
    void aResumableHandlerBeanIsRegisteredAsOne() {
        runner().withUserConfiguration(Resumable.class).withPropertyValues("skiplock.queues.default.concurrency=1")
                .run(context -> {
                    Skiplock skiplock = context.getBean(Skiplock.class);
                    Job job = skiplock.enqueue(JobRequest.of("resumable", new Greeting("Ada")));
                    assertThat(skiplock.awaitTerminal(job.id(), Duration.ofMinutes(1)).status())
                            .isEqualTo(JobStatus.SUCCEEDED);
                    await().atMost(Duration.ofMinutes(1))
                            .until(() -> context.getBean(Resumable.class).completed.contains(job.id()));
                });
    }

    /** Before, two DataSources made the whole starter back off: the application's own Skiplock never started. */
    @Test
    void anApplicationsOwnSkiplockBesideTwoDataSourcesIsStartedAndServed() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SkiplockAutoConfiguration.class))
                .withBean("first", DataSource.class, () -> pool(url()))
                .withBean("second", DataSource.class, () -> pool("jdbc:sqlite:" + directory.resolve("other.db")))
                .withBean(Skiplock.class, () -> Skiplock.builder().url(url())
                        .config(SkiplockConfig.builder().queue("default", 1).pollInterval(Duration.ofMillis(100)).build())
                        .handler("greet", Greeting.class, context -> JobOutcome.complete()).build())
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(SkiplockLifecycle.class).hasSingleBean(SkiplockJobs.class);
                    Skiplock skiplock = context.getBean(Skiplock.class);
                    Job job = skiplock.enqueue(JobRequest.of("greet", new Greeting("Ada")));
                    assertThat(skiplock.awaitTerminal(job.id(), Duration.ofMinutes(1)).status())
                            .isEqualTo(JobStatus.SUCCEEDED);
                });
    }

    private static HikariDataSource pool(String url) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url + SQLITE_SETTINGS);
        return pool;
    }

    @Test
    void aJobHandlerBeanWithoutTheAnnotationStopsTheContextNamingIt() {
        runner().withBean("mystery", Unannotated.class, Unannotated::new).run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("'mystery'").hasMessageContaining("@SkiplockHandler"));
    }

    @Test
    void enqueueJoinsTheSpringTransactionOrRunsInItsOwn() {
        runner().run(context -> {
            SkiplockJobs jobs = context.getBean(SkiplockJobs.class);
            Skiplock skiplock = context.getBean(Skiplock.class);
            TransactionTemplate transaction = new TransactionTemplate(context.getBean(DataSourceTransactionManager.class));

            UUID committed = transaction.execute(status -> jobs.enqueue(JobRequest.of("greet", new Greeting("a"))).id());
            UUID rolledBack = transaction.execute(status -> {
                UUID id = jobs.enqueue(JobRequest.of("greet", new Greeting("b"))).id();
                status.setRollbackOnly();
                return id;
            });
            UUID alone = jobs.enqueue(JobRequest.of("greet", new Greeting("c"))).id();

            assertThat(skiplock.get(committed)).isPresent();
            assertThat(skiplock.get(rolledBack)).isEmpty();
            assertThat(skiplock.get(alone)).isPresent();
        });
    }

    /** Before, the job was written at once on an autocommit connection and outlived the rollback. */
    @Test
    void enqueueInATransactionOfAnotherDataSourceIsRefused() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SkiplockAutoConfiguration.class))
                .withBean("skiplocks", DataSource.class, () -> pool(url()), definition -> definition.setPrimary(true))
                .withBean("orders", DataSource.class, () -> pool("jdbc:sqlite:" + directory.resolve("orders.db")))
                .run(context -> {
                    SkiplockJobs jobs = context.getBean(SkiplockJobs.class);
                    Skiplock skiplock = context.getBean(Skiplock.class);
                    TransactionTemplate orders = new TransactionTemplate(
                            new DataSourceTransactionManager(context.getBean("orders", DataSource.class)));

                    assertThatThrownBy(() -> orders.executeWithoutResult(status ->
                            jobs.enqueue(JobRequest.of("greet", new Greeting("a")))))
                            .isInstanceOf(IllegalStateException.class).hasMessageContaining("not on Skiplock's DataSource");
                    assertThat(skiplock.list(dev.skiplock.JobQuery.all()).jobs()).isEmpty();
                });
    }

    @Test
    void countersAndHealthReportTheInstance() {
        runner().withUserConfiguration(GreetHandler.class).withPropertyValues("skiplock.queues.default.concurrency=1")
                .run(context -> {
                    SimpleMeterRegistry registry = new SimpleMeterRegistry();
                    context.getBean(SkiplockMeterBinder.class).bindTo(registry);
                    Skiplock skiplock = context.getBean(Skiplock.class);
                    Job job = skiplock.enqueue(JobRequest.of("greet", new Greeting("Ada")));
                    skiplock.awaitTerminal(job.id(), Duration.ofMinutes(1));
                    await().atMost(Duration.ofMinutes(1)).until(() -> registry.find("skiplock.jobs.succeeded")
                            .tags("queue", "default", "kind", "greet").counter() != null
                            && registry.get("skiplock.jobs.succeeded").counter().count() == 1);
                    assertThat(registry.get("skiplock.jobs.claimed").tag("queue", "default").counter().count()).isEqualTo(1);
                    assertThat(registry.get("skiplock.job.run").tags("queue", "default", "kind", "greet").timer().count())
                            .isEqualTo(1);

                    HealthIndicator health = context.getBean("skiplockHealthIndicator", HealthIndicator.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                    assertThat(health.health().getDetails()).containsEntry("worker", "started")
                            .containsEntry("database", "sqlite").containsEntry("pendingMigrations", java.util.List.of());

                    context.getBean(SkiplockLifecycle.class).stop();
                    assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.health().getDetails()).containsEntry("worker", "stopped");
                });
    }

    /**
     * A newer Skiplock migrated the schema under a running application (a rolling upgrade): it goes
     * on, and its health stays up, saying so. Before, it was down.
     */
    @Test
    void aSchemaANewerSkiplockMigratedLeavesTheHealthUp() {
        runner().withPropertyValues("skiplock.queues.default.concurrency=1").run(context -> {
            try (java.sql.Connection connection = context.getBean(DataSource.class).getConnection();
                    java.sql.Statement statement = connection.createStatement()) {
                statement.executeUpdate("INSERT INTO skiplock_migrations (version, name) VALUES (9999, '9999_newer')");
            }
            HealthIndicator health = context.getBean("skiplockHealthIndicator", HealthIndicator.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            assertThat((String) health.health().getDetails().get("schema")).contains("schema is at migration 9999");
        });
    }

    @Test
    void closingTheContextReleasesARunningJob() throws Exception {
        UUID[] id = new UUID[1];
        runner().withUserConfiguration(BlockingHandler.class)
                .withPropertyValues("skiplock.queues.default.concurrency=1", "skiplock.shutdown-timeout=100ms")
                .run(context -> {
                    id[0] = context.getBean(Skiplock.class).enqueue(JobRequest.of("block", new Greeting("x"))).id();
                    assertThat(context.getBean(BlockingHandler.class).started.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                });   // the runner closes the context here, the handler still blocked

        try (SkiplockClient client = Skiplock.builder().url(url()).buildClient()) {
            Job released = client.get(id[0]).orElseThrow();
            assertThat(released.status()).isEqualTo(JobStatus.QUEUED);
            assertThat(released.lockedBy()).isNull();
            assertThat(released.lockedUntil()).isNull();
            assertThat(released.attempt()).isEqualTo(1);
        }
    }

    /**
     * Actuator's rule for its indicators: {@code management.health.defaults.enabled=false} turns the
     * indicator off unless {@code management.health.skiplock.enabled} turns it on. Before, the
     * defaults' flag was ignored.
     */
    @Test
    void theHealthIndicatorFollowsTheDefaultsFlagUnlessItsOwnIsSet() {
        runner().withPropertyValues("management.health.defaults.enabled=false").run(context ->
                assertThat(context).hasSingleBean(Skiplock.class).doesNotHaveBean("skiplockHealthIndicator"));
        runner().withPropertyValues("management.health.defaults.enabled=false", "management.health.skiplock.enabled=true")
                .run(context -> assertThat(context).hasBean("skiplockHealthIndicator"));
        runner().withPropertyValues("management.health.skiplock.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean("skiplockHealthIndicator"));
        runner().run(context -> assertThat(context).hasBean("skiplockHealthIndicator"));
    }

    /**
     * The {@code Skiplock} bean, which migrates its tables, is built after the application's
     * database initializers ({@code spring.sql.init} here; Flyway and Liquibase by the same rule).
     * Flyway refuses to migrate a schema holding tables but no history of its own, as Skiplock's
     * tables made it when they came first. Before, the bean was built first.
     */
    @Test
    void theSkiplockBeanIsBuiltAfterTheApplicationsDatabaseInitializers() throws Exception {
        Path schema = directory.resolve("schema.sql");
        java.nio.file.Files.writeString(schema, "CREATE TABLE app_ready (id INTEGER);");
        java.util.concurrent.atomic.AtomicBoolean initializedFirst = new java.util.concurrent.atomic.AtomicBoolean();
        runner().withConfiguration(AutoConfigurations.of(
                        org.springframework.boot.autoconfigure.sql.init.SqlInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always", "spring.sql.init.schema-locations=file:" + schema)
                .withBean(SkiplockCustomizer.class, () -> builder -> initializedFirst.set(hasTable("app_ready")))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(Skiplock.class);
                    assertThat(initializedFirst).as("the application's schema was there when the Skiplock bean was built")
                            .isTrue();
                });
    }

    private boolean hasTable(String table) {
        try (java.sql.Connection connection = java.sql.DriverManager.getConnection(url());
                java.sql.PreparedStatement statement = connection.prepareStatement(
                        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?")) {
            statement.setString(1, table);
            try (java.sql.ResultSet row = statement.executeQuery()) {
                return row.next() && row.getInt(1) == 1;
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void skiplockEnabledFalseBuildsNothing() {
        runner().withPropertyValues("skiplock.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(Skiplock.class).doesNotHaveBean(SkiplockJobs.class));
    }
}
