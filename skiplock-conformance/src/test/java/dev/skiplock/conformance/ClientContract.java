package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skiplock.Job;
import dev.skiplock.JobClient;
import dev.skiplock.JobNotFoundException;
import dev.skiplock.JobPage;
import dev.skiplock.JobQuery;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.QueueCount;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.internal.store.CronStore;
import dev.skiplock.internal.store.EventStore;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.internal.store.QueueStore;
import dev.skiplock.internal.store.SignalStore;
import dev.skiplock.internal.store.StepStore;
import dev.skiplock.internal.store.WorkerStore;
import dev.skiplock.spi.Driver;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The client side: bad input, batches, unique keys, listing, tenant isolation, migrations. */
abstract class ClientContract extends ContractBase {

    record Payload(String value) {
    }

    @Test
    void invalidRequestsAreRejectedNamingTheFieldAndWriteNothing() {
        Skiplock client = client();
        assertThatThrownBy(() -> JobRequest.of("bad kind!", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("kind:");
        assertThatThrownBy(() -> JobRequest.of("ok", null).withQueue("")).hasMessageStartingWith("queue:");
        assertThatThrownBy(() -> JobRequest.of("ok", null).withQueue("a".repeat(129))).hasMessageStartingWith("queue:");
        assertThatThrownBy(() -> JobRequest.of("ok", null).withMaxAttempts(-1)).hasMessageStartingWith("maxAttempts:");
        assertThatThrownBy(() -> JobRequest.of("ok", null).withPriority(1_000_000)).hasMessageStartingWith("priority:");
        assertThatThrownBy(() -> JobRequest.of("ok", null).withTimeout(Duration.ZERO)).hasMessageStartingWith("timeout:");
        assertThatThrownBy(() -> JobRequest.of("ok", null).withUniqueKey("has space")).hasMessageStartingWith("uniqueKey:");
        assertThatThrownBy(() -> JobRequest.of("ok", null).withRunAt(Instant.parse("+10000-01-01T00:00:00Z")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("runAt:");
        assertThatThrownBy(() -> JobRequest.of("ok", null).withRunAt(Instant.parse("-0001-12-31T23:59:59Z")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("runAt:");
        assertThatThrownBy(() -> client.enqueueMany(List.of())).hasMessageStartingWith("jobs:");
        assertThatThrownBy(() -> client.tenant("no/slash")).hasMessageStartingWith("tenant:");
        assertThatThrownBy(() -> client.list(JobQuery.all().withLimit(501))).hasMessageStartingWith("limit:");

        assertThat(client.list(JobQuery.all()).jobs()).isEmpty();
    }

    @Test
    void batchIsInsertedAtomicallyInRequestOrder() {
        Skiplock client = client();
        List<Job> jobs = client.enqueueMany(List.of(
                JobRequest.of("a", new Payload("1")),
                JobRequest.of("b", new Payload("2")).withQueue("other"),
                JobRequest.of("c", new Payload("3")).withPriority(7)));

        assertThat(jobs).extracting(Job::kind).containsExactly("a", "b", "c");
        assertThat(jobs.get(1).queue()).isEqualTo("other");
        assertThat(jobs.get(2).priority()).isEqualTo(7);
        assertThat(client.list(JobQuery.all()).jobs()).hasSize(3);
    }

    /**
     * A batch takes its unique keys in key order (so that two batches never wait for each other's
     * keys: PostgresClientTest), yet answers in request order, and of one key twice in a batch the
     * first request takes it.
     */
    @Test
    void aKeyedBatchAnswersInRequestOrderAndTheFirstOfAKeyTakesIt() {
        Skiplock client = client();
        List<Job> jobs = client.enqueueMany(List.of(
                JobRequest.of("z", new Payload("1")).withUniqueKey("z"),
                JobRequest.of("plain", new Payload("2")),
                JobRequest.of("m", new Payload("3")).withUniqueKey("m"),
                JobRequest.of("z", new Payload("4")).withUniqueKey("z"),
                JobRequest.of("a", new Payload("5")).withUniqueKey("a")));

        assertThat(jobs).extracting(job -> job.args().get("value").asText()).containsExactly("1", "2", "3", "1", "5");
        assertThat(jobs.get(3).id()).isEqualTo(jobs.get(0).id());
        assertThat(client.list(JobQuery.all()).jobs()).hasSize(4);
    }

    @Test
    void largeBatchIsStoredExactlyAsReturnedWithItsFirstEvent() {
        Skiplock client = client();
        String awkward = "tab\there, line\nbreak, cr\r, backslash \\ and \\N, quote \" and ünïcödé ✓";
        Instant later = Instant.now().plus(Duration.ofHours(1));
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            String queue = i < 100 ? (i % 2 == 0 ? "even" : "odd") // alternating,
                    : i < 125 ? "even" : "odd"; // then one run of each
            JobRequest request = JobRequest.of("kind." + i, new Payload(awkward + i)).withPriority(i % 5)
                    .withQueue(queue).withMetadata(Map.of("note", awkward));
            requests.add(i % 3 == 0 ? request.withRunAt(later).withTimeout(Duration.ofSeconds(7)) : request);
        }
        List<Job> jobs = client.enqueueMany(requests);

        assertThat(jobs).hasSize(150);
        for (Job job : jobs) {
            assertThat(client.get(job.id())).contains(job);
            assertThat(client.events(job.id(), 0, 10)).extracting(event -> event.status() + "@" + event.attempt())
                    .containsExactly("queued@0");
        }
        assertThat(jobs.getFirst().args().get("value").asText()).isEqualTo(awkward + 0);
        assertThat(jobs.get(3).availableAt()).isAfter(jobs.get(3).requestedAt().plus(Duration.ofMinutes(59)));
        assertThat(jobs.get(1).availableAt()).isEqualTo(jobs.get(1).requestedAt());
        // counted per queue, whether its jobs came in runs or alternating
        assertThat(client.count()).containsExactlyInAnyOrder(new QueueCount("even", JobStatus.QUEUED, 75),
                new QueueCount("odd", JobStatus.QUEUED, 75));
    }

    @Test
    void uniqueKeyReturnsTheLiveJobInsteadOfCreatingAnother() {
        Skiplock client = client();
        Job first = client.enqueue(JobRequest.of("report", new Payload("1")).withUniqueKey("report:2026-11-26"));
        Job second = client.enqueue(JobRequest.of("report", new Payload("2")).withUniqueKey("report:2026-11-26"));
        assertThat(second.id()).isEqualTo(first.id());
        assertThat(second.args().get("value").asText()).isEqualTo("1");

        client.cancel(first.id());
        Job afterCancel = client.enqueue(JobRequest.of("report", new Payload("3")).withUniqueKey("report:2026-11-26"));
        assertThat(afterCancel.id()).isNotEqualTo(first.id());
        assertThat(client.tenant("other").enqueue(JobRequest.of("report", null).withUniqueKey("report:2026-11-26"))
                .id()).isNotEqualTo(afterCancel.id());
    }

    /**
     * A job born failed (its dependency failed) with a unique key a live job holds is that job, as
     * any other enqueue of the key is: in the database, and earlier in its batch. A failed job holds
     * no key, so its insert met no conflict: before, a second, failed job was made (reviewer).
     */
    @Test
    void aJobBornFailedWithAKeyALiveJobHoldsIsThatJob() {
        Skiplock client = client();
        Job holder = client.enqueue(JobRequest.of("report", new Payload("1")).withQueue("idle").withUniqueKey("daily"));
        Job dependency = client.enqueue(JobRequest.of("report", new Payload("d")).withQueue("idle"));
        client.cancel(dependency.id());

        dev.skiplock.Enqueued again = client.enqueueOrReuse(JobRequest.of("report", new Payload("2")).withQueue("idle")
                .withUniqueKey("daily").withDependsOn(List.of(dependency.id())));
        assertThat(again.job().id()).isEqualTo(holder.id());
        assertThat(again.created()).isFalse();
        List<Job> batch = client.enqueueMany(List.of(
                JobRequest.of("report", new Payload("3")).withQueue("idle").withUniqueKey("weekly"),
                JobRequest.of("report", new Payload("4")).withQueue("idle").withUniqueKey("weekly")
                        .withDependsOn(List.of(dependency.id()))));
        assertThat(batch.get(1).id()).isEqualTo(batch.get(0).id());
        assertThat(batch.get(0).status()).isEqualTo(JobStatus.QUEUED);
        // with no live holder, it is born failed as before
        Job alone = client.enqueue(JobRequest.of("report", new Payload("5")).withQueue("idle").withUniqueKey("monthly")
                .withDependsOn(List.of(dependency.id())));
        assertThat(alone.status()).isEqualTo(JobStatus.FAILED);
        assertThat(client.list(JobQuery.all().withQueue("idle")).jobs()).hasSize(4);
    }

    @Test
    void listPagesNewestFirstWithFilters() {
        Skiplock client = client();
        List<Job> created = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            created.add(client.enqueue(JobRequest.of(i % 2 == 0 ? "even" : "odd", new Payload("" + i))));
        }
        client.cancel(created.get(0).id());

        JobPage first = client.list(JobQuery.all().withLimit(3));
        JobPage second = client.list(JobQuery.all().withLimit(3).withCursor(first.nextCursor()));
        JobPage third = client.list(JobQuery.all().withLimit(3).withCursor(second.nextCursor()));
        List<Job> all = new ArrayList<>(first.jobs());
        all.addAll(second.jobs());
        all.addAll(third.jobs());
        assertThat(all).extracting(Job::id).containsExactlyElementsOf(created.reversed().stream().map(Job::id).toList());
        assertThat(third.nextCursor()).isNull();

        assertThat(client.list(JobQuery.all().withKind("odd")).jobs()).hasSize(3);
        assertThat(client.list(JobQuery.all().withStatus(JobStatus.CANCELLED)).jobs()).extracting(Job::id)
                .containsExactly(created.get(0).id());
        assertThat(client.list(JobQuery.all().withQueue("nope")).jobs()).isEmpty();
    }

    @Test
    void countsJobsPerQueueAndStatus() {
        Skiplock client = client();
        client.enqueueMany(List.of(JobRequest.of("a", null), JobRequest.of("a", null),
                JobRequest.of("a", null).withQueue("other")));
        client.cancel(client.enqueue(JobRequest.of("a", null)).id());
        client.tenant("elsewhere").enqueue(JobRequest.of("a", null));

        assertThat(client.count()).containsExactlyInAnyOrder(
                new QueueCount("default", JobStatus.QUEUED, 2),
                new QueueCount("default", JobStatus.CANCELLED, 1),
                new QueueCount("other", JobStatus.QUEUED, 1));
    }

    @Test
    void tenantsNeverSeeEachOthersJobs() {
        Skiplock skiplock = client();
        JobClient acme = skiplock.tenant("acme");
        JobClient globex = skiplock.tenant("globex");
        Job acmeJob = acme.enqueue(JobRequest.of("work", new Payload("secret")));

        assertThat(acmeJob.tenant()).isEqualTo("acme");
        assertThat(globex.get(acmeJob.id())).isEmpty();
        assertThat(globex.list(JobQuery.all()).jobs()).isEmpty();
        assertThat(skiplock.get(acmeJob.id())).isEmpty();
        assertThatThrownBy(() -> globex.cancel(acmeJob.id())).isInstanceOf(JobNotFoundException.class);
        assertThatThrownBy(() -> globex.retry(acmeJob.id())).isInstanceOf(JobNotFoundException.class);
        assertThat(acme.get(acmeJob.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
    }

    @Test
    void anAdministratorFindsAJobsTenantAndListsEveryTenantNewestFirst() {
        Skiplock skiplock = client();
        Job acme = skiplock.tenant("acme").enqueue(JobRequest.of("work", null));
        Job globex = skiplock.tenant("globex").enqueue(JobRequest.of("work", null).withQueue("other"));
        Job own = skiplock.enqueue(JobRequest.of("chore", null));

        assertThat(skiplock.tenantOf(acme.id())).contains("acme");
        assertThat(skiplock.tenantOf(own.id())).contains(Skiplock.DEFAULT_TENANT);
        assertThat(skiplock.tenantOf(java.util.UUID.randomUUID())).isEmpty();
        assertThatThrownBy(() -> skiplock.tenantOf(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("id:");

        assertThat(skiplock.listAllTenants(null).jobs()).extracting(Job::id)
                .containsExactly(own.id(), globex.id(), acme.id());
        JobPage first = skiplock.listAllTenants(JobQuery.all().withLimit(2));
        assertThat(first.jobs()).extracting(Job::id).containsExactly(own.id(), globex.id());
        assertThat(skiplock.listAllTenants(JobQuery.all().withLimit(2).withCursor(first.nextCursor())).jobs())
                .extracting(Job::id).containsExactly(acme.id());
        assertThat(skiplock.listAllTenants(JobQuery.all().withKind("work").withQueue("other")).jobs())
                .extracting(Job::tenant).containsExactly("globex");
        assertThat(skiplock.listAllTenants(JobQuery.all().withStatus(JobStatus.CANCELLED)).jobs()).isEmpty();
        assertThat(skiplock.list(JobQuery.all()).jobs()).as("the default tenant's list is unchanged")
                .extracting(Job::id).containsExactly(own.id());
    }

    @Test
    void processesStartingTogetherMigrateOnce() throws Exception {
        ExecutorService starters = Executors.newFixedThreadPool(4);
        try {
            List<Callable<Skiplock>> starts = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                starts.add(() -> track(builder(config -> { }).build()));
            }
            for (Future<Skiplock> started : starters.invokeAll(starts, WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
                assertThat(started.get().enqueue(JobRequest.of("ping", null)).status()).isEqualTo(JobStatus.QUEUED);
            }
        } finally {
            starters.shutdown();
        }
        assertThat(client().list(JobQuery.all()).jobs()).hasSize(4);
    }

    @Test
    void startRefusesASchemaMigratedByANewerSkiplock() {
        Skiplock first = client();
        Jdbc.update(first.dataSource(), "INSERT INTO skiplock_migrations (version, name) VALUES (9999, '9999_future')");

        assertThatThrownBy(this::client).hasMessageContaining("schema is at migration 9999")
                .hasMessageContaining("upgrade this process");
    }

    /** Issue #15: the pool Skiplock creates is sized by the application; a pool it is given is not touched. */
    @Test
    void thePoolCreatedFromAUrlTakesItsSizeAndAGivenPoolTakesNoSettings() {
        Skiplock sized = track(Skiplock.builder().url(database.url()).maxPoolSize(3).build());
        assertThat(((com.zaxxer.hikari.HikariDataSource) sized.dataSource()).getMaximumPoolSize()).isEqualTo(3);

        assertThatThrownBy(() -> Skiplock.builder().url(database.url()).maxPoolSize(1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxPoolSize:");
        assertThatThrownBy(() -> Skiplock.builder().dataSource(sized.dataSource()).maxPoolSize(4).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxPoolSize:");
        assertThatThrownBy(() -> Skiplock.builder().dataSource(sized.dataSource()).user("app").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("user:");
    }

    /**
     * Issue #12: the pool of an instance that serves no queue (an enqueue-only client) keeps one
     * connection open and opens more as its callers ask for them, up to its size; a worker's pool
     * is full from the start, for its claimers, completer and heartbeats.
     */
    @Test
    void aPoolWithoutQueuesOpensItsConnectionsAsTheyAreAskedFor() throws Exception {
        Skiplock client = track(Skiplock.builder().url(database.url()).maxPoolSize(3).build());
        com.zaxxer.hikari.HikariDataSource clientPool = (com.zaxxer.hikari.HikariDataSource) client.dataSource();
        assertThat(clientPool.getMinimumIdle()).isEqualTo(1);
        try (java.sql.Connection first = clientPool.getConnection(); java.sql.Connection second = clientPool.getConnection();
                java.sql.Connection third = clientPool.getConnection()) {
            assertThat(List.of(first, second, third)).allSatisfy(connection -> assertThat(connection.isValid(1)).isTrue());
            assertThat(clientPool.getHikariPoolMXBean().getTotalConnections()).isEqualTo(3);
        }

        Skiplock worker = track(Skiplock.builder().url(database.url()).maxPoolSize(3)
                .config(SkiplockConfig.builder().queue("pooled", 1).build()).build());
        assertThat(((com.zaxxer.hikari.HikariDataSource) worker.dataSource()).getMinimumIdle()).isEqualTo(3);
    }

    /**
     * A pool whose connections start in a transaction would roll back Skiplock's single statements
     * when each connection goes back (an enqueue returned, then lost): refused, naming the field.
     */
    @Test
    void aDataSourceWhoseConnectionsDoNotAutocommitIsRefused() {
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(database.url());
        config.setAutoCommit(false);
        config.setMaximumPoolSize(2);
        try (com.zaxxer.hikari.HikariDataSource inTransaction = new com.zaxxer.hikari.HikariDataSource(config)) {
            assertThatThrownBy(() -> Skiplock.builder().dataSource(inTransaction).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("dataSource:")
                    .hasMessageContaining("autocommit");
        }
    }

    /** Issue #15: a producer builds a client that runs nothing and never migrates behind its workers' back. */
    @Test
    void aClientRefusesAnUnmigratedSchemaAndEnqueuesOnceItIsMigrated() {
        assertThatThrownBy(() -> Skiplock.builder().url(database.url()).buildClient())
                .isInstanceOf(dev.skiplock.SkiplockException.class).hasMessageContaining("0001_jobs")
                .hasMessageContaining("skiplock migrate");

        assertThat(Skiplock.builder().url(database.url()).migrate()).contains("0001_jobs");
        assertThat(Skiplock.builder().url(database.url()).migrate()).isEmpty();

        try (dev.skiplock.SkiplockClient client = Skiplock.builder().url(database.url()).buildClient()) {
            Job job = client.enqueue(JobRequest.of("report", Map.of("day", 1)));
            assertThat(client.get(job.id()).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
            assertThat(client.tenant("acme").list(JobQuery.all()).jobs()).isEmpty();
        }
    }

    /** Issue #15: a health check (the Spring Boot starter's) asks whether the schema is current. */
    @Test
    void anInstanceReportsTheMigrationsItsDatabaseLacks() {
        dev.skiplock.SkiplockConfig unmigrated = dev.skiplock.SkiplockConfig.builder().migrate(false).build();
        try (Skiplock skiplock = Skiplock.builder().url(database.url()).config(unmigrated).build()) {
            assertThat(skiplock.pendingMigrations()).startsWith("0001_jobs");
            Skiplock.builder().url(database.url()).migrate();
            assertThat(skiplock.pendingMigrations()).isEmpty();
        }
    }

    @Test
    void aClientTakesNoHandlersAndNoQueues() {
        assertThatThrownBy(() -> Skiplock.builder().url(database.url())
                .handler("report", Map.class, context -> dev.skiplock.JobOutcome.complete()).buildClient())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("handler:");
        assertThatThrownBy(() -> Skiplock.builder().url(database.url())
                .config(dev.skiplock.SkiplockConfig.builder().queue("default", 2).build()).buildClient())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("queues:");
    }

    /** While a handler runs, SLF4J's MDC names its job (durable and in-memory alike), and nothing after. */
    @Test
    void theHandlersLogLinesNameTheirJobThroughTheMdc() throws Exception {
        List<Map<String, String>> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        Skiplock skiplock = started(builder(config -> config.queue("mdc", 1)).handler("mdc.kind", Object.class, context -> {
            seen.add(org.slf4j.MDC.getCopyOfContextMap());
            return dev.skiplock.JobOutcome.complete();
        }));
        JobClient acme = skiplock.tenant("acme");
        Job durable = acme.enqueue(JobRequest.of("mdc.kind", null).withQueue("mdc"));
        acme.awaitTerminal(durable.id(), WAIT);
        Job inMemory = acme.enqueue(JobRequest.of("mdc.kind", null).withQueue("mdc").withDurable(false));
        acme.awaitTerminal(inMemory.id(), WAIT);

        assertThat(seen).hasSize(2);
        for (int i = 0; i < 2; i++) {
            Job job = i == 0 ? durable : inMemory;
            assertThat(seen.get(i)).containsEntry("skiplock.jobId", job.id().toString())
                    .containsEntry("skiplock.kind", "mdc.kind").containsEntry("skiplock.queue", "mdc")
                    .containsEntry("skiplock.attempt", "1").containsEntry("skiplock.tenant", "acme");
        }
        assertThat(org.slf4j.MDC.get("skiplock.jobId")).isNull();
    }

    /** A job enqueued to a queue no live worker serves would wait silently: it is counted (and logged). */
    @Test
    void jobsEnqueuedToAQueueNoWorkerServesAreCounted() {
        started(builder(config -> config.queue("served", 1)).handler("noop", Object.class,
                context -> dev.skiplock.JobOutcome.complete()));
        Skiplock producer = client();

        producer.enqueue(dev.skiplock.JobRequest.of("noop", null).withQueue("served"));
        producer.enqueueMany(List.of(dev.skiplock.JobRequest.of("noop", null).withQueue("nobody"),
                dev.skiplock.JobRequest.of("noop", null).withQueue("nobody"),
                dev.skiplock.JobRequest.of("noop", null).withQueue("served"),
                dev.skiplock.JobRequest.of("noop", null).withQueue("nobody")));
        producer.enqueueScheduled("nightly", java.time.Instant.parse("2026-12-01T03:00:00Z"),
                dev.skiplock.JobRequest.of("noop", null).withQueue("nobody"));
        // a request whose unique key a live job holds enqueues nothing: that job is not counted again
        for (int i = 0; i < 2; i++) {
            producer.enqueue(dev.skiplock.JobRequest.of("noop", null).withQueue("nobody").withUniqueKey("once"));
            producer.enqueueMany(List.of(dev.skiplock.JobRequest.of("noop", null).withQueue("nobody")
                    .withUniqueKey("once")));
        }

        assertThat(producer.metrics().enqueuedToUnservedQueues())
                .as("three of the batch, the scheduled job and the keyed one").isEqualTo(5);
    }

    /** The claim batch size is its own setting: concurrency 10, at most 2 jobs per claim statement. */
    @Test
    void aClaimStatementTakesAtMostTheClaimBatchSize() {
        Skiplock client = client();
        for (int i = 0; i < 10; i++) {
            client.enqueue(dev.skiplock.JobRequest.of("noop", null));
        }
        Skiplock worker = started(builder(config -> config.queue("default", 10).claimBatchSize(2))
                .handler("noop", Object.class, context -> dev.skiplock.JobOutcome.complete()));

        awaitCount(() -> worker.metrics().succeeded(), 10);
        assertThat(worker.metrics().claimStatements()).isGreaterThanOrEqualTo(5);
        assertThatThrownBy(() -> SkiplockConfig.builder().claimBatchSize(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("claimBatchSize:");
    }

    @Test
    void theLibraryKnowsItsVersion() {
        assertThat(Skiplock.version()).matches("\\d+\\.\\d+\\.\\d+.*");
    }

    @Test
    void driverDefinesEveryStatementTheStoreRuns() {
        Driver driver = ServiceLoader.load(Driver.class).stream().map(ServiceLoader.Provider::get)
                .filter(candidate -> candidate.acceptsUrl(database.url())).findFirst().orElseThrow();
        Map<String, List<String>> tables = new HashMap<>(Map.of("jobs", JobStore.STATEMENTS,
                "events", EventStore.STATEMENTS, "queues", QueueStore.STATEMENTS, "workers", WorkerStore.STATEMENTS,
                "cron", CronStore.STATEMENTS, "steps", StepStore.STATEMENTS, "signals", SignalStore.STATEMENTS));
        driver.bulkCopy().ifPresent(bulkCopy -> tables.put("bulk", JobStore.BULK_STATEMENTS));
        if (driver.dialect().hotPathBookkeptByStore()) {
            tables.put("hot_path", JobStore.HOT_PATH_STATEMENTS);
        }
        if (driver.dialect().readsClaimedJobsAfterCommit()) {
            tables.put("jobs",
                    Stream.concat(JobStore.STATEMENTS.stream(), JobStore.CLAIM_READ_STATEMENTS.stream()).toList());
        }
        tables.forEach((table, statements) -> assertThat(
                SqlFile.load(driver.resourceRoot() + "/sql/" + table + ".sql").statements().keySet())
                .as(table).containsExactlyInAnyOrderElementsOf(statements));
    }

    /**
     * Each public method of a store is named after the statement it runs ({@code claim_jobs} →
     * {@code claimJobs}), so a reader finds the SQL from the call and the call from the SQL.
     */
    @Test
    void storeMethodsAreNamedAfterTheirStatements() {
        Map<Class<?>, List<String>> stores = Map.of(JobStore.class, JobStore.STATEMENTS, EventStore.class,
                EventStore.STATEMENTS, QueueStore.class, QueueStore.STATEMENTS, WorkerStore.class,
                WorkerStore.STATEMENTS, CronStore.class, CronStore.STATEMENTS, StepStore.class, StepStore.STATEMENTS,
                SignalStore.class, SignalStore.STATEMENTS);
        stores.forEach((store, statements) -> {
            List<String> methods = statements.stream().map(ClientContract::camelCase).toList();
            assertThat(java.util.Arrays.stream(store.getDeclaredMethods())
                    .filter(method -> java.lang.reflect.Modifier.isPublic(method.getModifiers())
                            && !java.lang.reflect.Modifier.isStatic(method.getModifiers()))
                    .map(java.lang.reflect.Method::getName)
                    // isDataError classifies a store's failure, claimsFromFloor reads what claim_jobs
                    // takes and hasIdleConnection counts the pool's idle connections; none runs a
                    // statement. rehearse and rehearseOnEachConnection run the hot
                    // path's statements in a transaction they roll back (the worker's warm-up), and
                    // rehearseEnqueue the enqueue path's (an instance's build)
                    .filter(name -> !List.of("isDataError", "claimsFromFloor", "hasIdleConnection", "rehearse",
                            "rehearseOnEachConnection", "rehearseEnqueue").contains(name)))
                    .as("public methods of %s", store.getSimpleName()).isSubsetOf(methods);
        });
    }

    private static String camelCase(String statement) {
        StringBuilder name = new StringBuilder();
        for (String word : statement.split("_")) {
            name.append(name.isEmpty() ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1));
        }
        return name.toString();
    }
}
