package dev.skiplock;

import com.zaxxer.hikari.HikariDataSource;
import dev.skiplock.internal.engine.Counters;
import dev.skiplock.internal.engine.Engine;
import dev.skiplock.internal.engine.HandlerBinding;
import dev.skiplock.internal.engine.Worker;
import dev.skiplock.internal.engine.JobTracing;
import dev.skiplock.internal.engine.MemoryJobs;
import dev.skiplock.internal.engine.UnservedQueues;
import dev.skiplock.internal.EventSignals;
import dev.skiplock.internal.store.Stores;
import dev.skiplock.internal.store.Migrator;
import dev.skiplock.spi.Driver;
import dev.skiplock.spi.PoolSettings;
import dev.skiplock.spi.Notifier;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.util.Properties;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * A Skiplock instance: a job client for the {@code default} tenant (see {@link #tenant(String)} for
 * others) and, once {@link #start() started}, a worker running the configured queues' jobs.
 *
 * <pre>{@code
 * try (Skiplock skiplock = Skiplock.builder()
 *         .url("jdbc:sqlite:./jobs.db")
 *         .config(SkiplockConfig.builder().queue("default", 8).build())
 *         .handler("greet", Greeting.class, ctx -> { System.out.println(ctx.args().name()); return JobOutcome.complete(); })
 *         .build()) {
 *     skiplock.start();
 *     skiplock.enqueue(JobRequest.of("greet", new Greeting("Ada")));
 * }
 * }</pre>
 *
 * Thread-safe. {@link #close()} shuts down gracefully (see {@link SkiplockConfig#shutdownTimeout()}).
 * In-memory jobs ({@link JobRequest#withDurable(boolean) durable(false)}) run with this instance's
 * handlers whether or not it was started, and are lost when it closes.
 */
public final class Skiplock implements SkiplockClient {
    public static final String DEFAULT_TENANT = "default";

    private final SkiplockConfig config;
    private final DataSource dataSource;
    private final boolean ownsDataSource;
    private final Driver driver;
    private final Stores stores;
    private final EventSignals signals = new EventSignals();
    private final Counters counters;
    /** {@link Worker#NONE} for an enqueue-only instance (no queues). */
    private final Worker worker;
    private final MemoryJobs memory;
    private final Notifier notifier;
    private final UnservedQueues unserved;
    private final JobClient defaultTenant;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    private Skiplock(Builder builder, DataSource dataSource, boolean ownsDataSource, Driver driver) {
        this.config = builder.config;
        this.dataSource = dataSource;
        this.ownsDataSource = ownsDataSource;
        this.driver = driver;
        CompositeMeterRegistry meters = new CompositeMeterRegistry();
        builder.meterRegistries.forEach(meters::add);
        this.counters = new Counters(meters, builder.handlers.keySet(), config.queues().keySet());
        this.stores = Stores.open(dataSource, driver);
        this.notifier = driver.notifier(dataSource);
        this.worker = config.queues().isEmpty() ? Worker.NONE
                : new Engine(config, stores, builder.handlers, counters, signals, dataSource, builder.executionHook,
                        new JobTracing(builder.openTelemetry));
        this.memory = new MemoryJobs(config, builder.handlers, signals, new JobTracing(builder.openTelemetry));
        this.unserved = new UnservedQueues(stores.workers(), config.heartbeatInterval().toMillis(), counters);
        this.defaultTenant = tenant(DEFAULT_TENANT);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the workers of the configured queues and the notification listener (PostgreSQL: one
     * LISTEN connection), which also wakes {@link JobClient#awaitEvents} followers. An instance that
     * is never started only enqueues and reads. Idempotent.
     */
    public Skiplock start() {
        if (closed.get()) {
            throw new IllegalStateException("this Skiplock instance is closed");
        }
        if (started.compareAndSet(false, true)) {
            worker.start();
            notifier.start(new NotificationRouter());
        }
        return this;
    }

    /** Stops claiming from {@code queue} in every worker (running jobs finish). */
    public void pauseQueue(String queue) {
        stores.queues().setPaused(Names.check("queue", queue), true);
    }

    /** Lets workers claim from {@code queue} again and wakes this instance's claimer. */
    public void resumeQueue(String queue) {
        stores.queues().setPaused(Names.check("queue", queue), false);
        worker.wake(queue);
        notifier.publishQueueReady(queue);
    }

    /** Names of the paused queues. */
    public java.util.Set<String> pausedQueues() {
        return stores.queues().listPaused();
    }

    /**
     * The migrations this library has that the database lacks, oldest first; empty when the schema is
     * current (a health check). Reads the migrations table on every call.
     *
     * @throws SchemaNewerException if the database was migrated by a newer Skiplock (this instance goes on)
     * @throws SkiplockException     if the database cannot be reached
     */
    public List<String> pendingMigrations() {
        return new Migrator(dataSource, driver).pending();
    }

    /**
     * The worker registry: the worker instances that ran against this database, active ones first,
     * then stale (silent longer than its own lease), then stopped, each newest first, at most 500. A
     * stopped or silent worker's row is deleted by the running workers' retention ({@link SkiplockConfig#retention()},
     * but not before a day; kept while no running worker has a retention); a worker whose row was
     * deleted while it ran registers again at its next heartbeat, with that time as its start.
     */
    public List<WorkerInfo> workers() {
        return stores.workers().listWorkers(config.heartbeatInterval().toMillis());
    }

    /**
     * This library's version (e.g. {@code 0.1.0-SNAPSHOT}), written by the build; {@code "unknown"}
     * when the classes run without their resources.
     */
    public static String version() {
        try (InputStream in = Skiplock.class.getResourceAsStream("skiplock-version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * The tenant owning job {@code id} (durable, or in memory in this instance); empty when there is
     * no such job. For an administrator's view across tenants: act on the job through
     * {@code tenant(tenantOf(id))}. One primary-key read per call.
     *
     * @throws IllegalArgumentException if {@code id} is null (the message names {@code id})
     */
    public Optional<String> tenantOf(UUID id) {
        if (id == null) {
            throw new IllegalArgumentException("id: is required");
        }
        Optional<String> inMemory = memory.tenantOf(id);
        return inMemory.isPresent() ? inMemory : stores.jobs().getJobTenant(id);
    }

    /**
     * Durable jobs of every tenant, newest first, as {@link JobClient#list} pages them (same filters,
     * {@code limit}, keyset {@code cursor}); an administrator's view. To see one tenant's jobs, list
     * through {@code tenant(name)}. A {@code null} query is {@link JobQuery#all()}.
     */
    public JobPage listAllTenants(JobQuery query) {
        return stores.jobs().listJobsAllTenants(query == null ? JobQuery.all() : query);
    }

    /**
     * Jobs per queue and status of every tenant, as {@link JobClient#count} gives one tenant's; an
     * administrator's view. Read from the counts table the database keeps, never a count over the jobs.
     */
    public List<QueueCount> countAllTenants() {
        return stores.jobs().countJobs(null);
    }

    /** A client scoped to {@code tenant} (a name: {@code [A-Za-z0-9_.:-]{1,128}}). */
    public JobClient tenant(String tenant) {
        return new TenantJobClient(tenant, stores, config, worker, notifier, signals, memory, unserved);
    }

    public SkiplockConfig config() {
        return config;
    }

    /** The driver in use, e.g. {@code postgres} or {@code sqlite}. */
    public String driverName() {
        return driver.name();
    }

    /** The data source Skiplock uses; the same one your transactional enqueues should use. */
    public DataSource dataSource() {
        return dataSource;
    }

    public SkiplockMetrics metrics() {
        return counters.snapshot();
    }

    /**
     * Where this instance's Micrometer meters are registered: a composite of the registries given
     * to {@link Builder#meterRegistry} (README "Metrics" lists the meters). A registry added later
     * ({@code meterRegistry().add(…)}, as {@code skiplock serve} does with its Prometheus registry)
     * receives the meters already created too.
     */
    public CompositeMeterRegistry meterRegistry() {
        return (CompositeMeterRegistry) counters.registry();
    }

    @Override
    public String tenant() {
        return defaultTenant.tenant();
    }

    @Override
    public Job enqueue(JobRequest request) {
        return defaultTenant.enqueue(request);
    }

    @Override
    public Enqueued enqueueOrReuse(JobRequest request) {
        return defaultTenant.enqueueOrReuse(request);
    }

    @Override
    public Job enqueue(Connection connection, JobRequest request) {
        return defaultTenant.enqueue(connection, request);
    }

    @Override
    public Optional<Job> enqueueScheduled(String schedule, java.time.Instant slot, JobRequest request) {
        return defaultTenant.enqueueScheduled(schedule, slot, request);
    }

    @Override
    public List<Job> enqueueMany(List<JobRequest> requests) {
        return defaultTenant.enqueueMany(requests);
    }

    @Override
    public List<Job> enqueueMany(Connection connection, List<JobRequest> requests) {
        return defaultTenant.enqueueMany(connection, requests);
    }

    @Override
    public Optional<Job> get(UUID id) {
        return defaultTenant.get(id);
    }

    @Override
    public JobPage list(JobQuery query) {
        return defaultTenant.list(query);
    }

    @Override
    public List<QueueCount> count() {
        return defaultTenant.count();
    }

    @Override
    public List<QueueActivity> activity() {
        return defaultTenant.activity();
    }

    /** {@link JobClient#activity} over every tenant; an administrator's view. */
    public List<QueueActivity> activityAllTenants() {
        return stores.jobs().queueActivity(null);
    }

    @Override
    public Job cancel(UUID id) {
        return defaultTenant.cancel(id);
    }

    @Override
    public Job retry(UUID id) {
        return defaultTenant.retry(id);
    }

    @Override
    public Job signal(UUID id, String name, Object payload) {
        return defaultTenant.signal(id, name, payload);
    }

    /**
     * Stops claiming, lets running jobs finish for up to {@link SkiplockConfig#shutdownTimeout()},
     * interrupts the rest and releases their leases, writes pending outcomes, then closes the pool
     * if Skiplock created it. In-memory jobs still running are interrupted and lost. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            notifier.close();
            if (started.get()) {
                worker.close(); // first: its claimers stop before the in-memory jobs' wait below
            }
            memory.close();
        } finally {
            if (ownsDataSource && dataSource instanceof HikariDataSource pool) {
                pool.close();
            }
        }
    }

    /** Routes cross-process notifications to this instance's workers and event followers. */
    private final class NotificationRouter implements Notifier.Listener {
        @Override
        public void queueReady(String queue) {
            worker.wake(queue);
        }

        @Override
        public void queueReadyOnListenerThread(String queue) {
            worker.queueNotified(queue);
        }

        @Override
        public void orphansReaped(String queue) {
            worker.orphansAvailable(queue);
        }

        @Override
        public void cancelRequested(UUID jobId) {
            worker.cancelLocal(jobId);
        }

        @Override
        public void eventsAppended(UUID jobId) {
            signals.signal(jobId);
        }

        @Override
        public boolean followsEvents() {
            return signals.hasWaiters();
        }

        @Override
        public void resync() {
            worker.resync();
        }
    }

    @Override
    public List<JobEvent> events(UUID id, long afterSeq, int limit) {
        return defaultTenant.events(id, afterSeq, limit);
    }

    @Override
    public List<JobEvent> awaitEvents(UUID id, long afterSeq, int limit, java.time.Duration maxWait)
            throws InterruptedException {
        return defaultTenant.awaitEvents(id, afterSeq, limit, maxWait);
    }

    @Override
    public void delete(UUID id) {
        defaultTenant.delete(id);
    }

    /** Collects the data source, config and handlers; {@link #build()} validates, connects and migrates. */
    public static final class Builder {
        /** The connections kept open by the pool of an instance that serves no queue. */
        private static final int ON_DEMAND_MIN_IDLE = 1;
        private String url;
        private String user;
        private String password;
        private Integer maxPoolSize;
        private DataSource dataSource;
        private Driver driver;
        private SkiplockConfig config = SkiplockConfig.builder().build();
        private ExecutionHook executionHook = ExecutionHook.NONE;
        private boolean enqueueWarmUp = true;
        private io.opentelemetry.api.OpenTelemetry openTelemetry;
        private final List<MeterRegistry> meterRegistries = new ArrayList<>();
        private final Map<String, HandlerBinding<?>> handlers = new LinkedHashMap<>();

        /**
         * The database: a JDBC URL ({@code jdbc:postgresql:…}, {@code jdbc:sqlite:…}) or the form the
         * CLI takes too, {@code postgresql://user:password@host:port/db} (credentials may also come from
         * {@link #user} and {@link #password}); Skiplock creates and owns the pool.
         */
        public Builder url(String jdbcUrl) {
            this.url = jdbcUrl;
            return this;
        }

        /** With {@link #url}: the database user, kept out of the URL (default: the URL's). */
        public Builder user(String value) {
            this.user = value;
            return this;
        }

        /** With {@link #url}: the password, kept out of the URL (default: the URL's). */
        public Builder password(String value) {
            this.password = value;
            return this;
        }

        /**
         * With {@link #url}: the most connections the pool Skiplock creates opens (2 to 1000; default
         * 11 on PostgreSQL, 4 on SQLite). An instance with queues opens them all at once and keeps
         * them; one without (an enqueue-only client) opens one, and more as its callers ask for
         * them, closing those idle for ten minutes (HikariCP's idle timeout). Two instances in one
         * application hold two pools: size each, or give both your own pool with {@link #dataSource}.
         */
        public Builder maxPoolSize(int value) {
            this.maxPoolSize = value;
            return this;
        }

        /**
         * Your data source (e.g. your application's pool), whose connections start in autocommit
         * mode, as a pool's do by default; Skiplock does not close it.
         */
        public Builder dataSource(DataSource value) {
            this.dataSource = value;
            return this;
        }

        /** Chooses the driver explicitly; by default it is found from the URL or the database product. */
        public Builder driver(Driver value) {
            this.driver = value;
            return this;
        }

        public Builder config(SkiplockConfig value) {
            this.config = value;
            return this;
        }

        /**
         * Where each attempt's span goes (default: {@code GlobalOpenTelemetry}, looked up when a job
         * runs: a no-op unless the application or an agent set one up). Skiplock depends on the
         * OpenTelemetry API only.
         */
        public Builder openTelemetry(io.opentelemetry.api.OpenTelemetry value) {
            if (value == null) {
                throw new IllegalArgumentException("openTelemetry: is required (OpenTelemetry.noop() for none)");
            }
            this.openTelemetry = value;
            return this;
        }

        /**
         * A Micrometer registry to publish Skiplock's meters to (queue depth, wait and run time,
         * attempts, outcomes, leases, wake-ups, batch sizes: README "Metrics"); may be called again
         * for more registries. Without one, the meters cost next to nothing and go nowhere;
         * {@link Skiplock#metrics()} counts either way.
         */
        public Builder meterRegistry(MeterRegistry value) {
            if (value == null) {
                throw new IllegalArgumentException("meterRegistry: is required");
            }
            meterRegistries.add(value);
            return this;
        }

        /**
         * The config set so far (the default until {@link #config(SkiplockConfig)} is called): lets a
         * helper such as skiplock-testing's {@code SkiplockTesting} build a worker from this builder's
         * handlers with the same settings and other queues.
         */
        public SkiplockConfig config() {
            return config;
        }

        /**
         * Runs inside every transaction a handler opens with {@link JobContext#inTransaction}, before
         * and after its work (e.g. {@code SET LOCAL} of the job's tenant); default none.
         */
        public Builder executionHook(ExecutionHook value) {
            if (value == null) {
                throw new IllegalArgumentException("executionHook: is required (ExecutionHook.NONE for none)");
            }
            this.executionHook = value;
            return this;
        }

        /**
         * Whether {@link #build()} and {@link #buildClient()} rehearse the enqueue path before they
         * return, so that the application's first enqueue does not pay for loading and linking it
         * (default true; once per JVM and database kind: in a fresh JVM it costs the build about 0.4 s
         * and saves the first enqueue about as much). A rehearsal that fails (a role that may not
         * insert) is logged as a warning and not tried again by a later build. Off for a process
         * that builds an instance for one short command. A worker's start warms its own path
         * (claim, run, completion) either way.
         */
        public Builder enqueueWarmUp(boolean value) {
            this.enqueueWarmUp = value;
            return this;
        }

        /** Runs jobs of {@code kind}, reading their args into {@code argsType}. */
        public <A> Builder handler(String kind, Class<A> argsType, JobHandler<A> handler) {
            return handler(kind, argsType, null, handler);
        }

        /** As {@link #handler(String, Class, JobHandler)}, with this kind's own retry policy. */
        public <A> Builder handler(String kind, Class<A> argsType, RetryPolicy retryPolicy, JobHandler<A> handler) {
            HandlerBinding<A> binding = new HandlerBinding<>(kind, argsType, handler, retryPolicy);
            if (handlers.putIfAbsent(kind, binding) != null) {
                throw new IllegalArgumentException("kind: a handler for " + kind + " is already registered");
            }
            return this;
        }

        public Skiplock build() {
            Database database = connect();
            try {
                if (config.migrate()) {
                    new Migrator(database.source(), database.driver()).migrate();
                }
                return warmedUp(new Skiplock(this, database.source(), database.owned(), database.driver()));
            } catch (RuntimeException e) {
                database.closeIfOwned();
                throw e;
            }
        }

        /**
         * An enqueue-only client ({@link SkiplockClient}): no handlers and no queues may be set, and the
         * schema is not migrated but checked, so a producer never changes the database behind its
         * workers' back; migrate with {@link #migrate()}, {@code skiplock migrate} or a worker's start.
         *
         * @throws SkiplockException if the schema lacks migrations this library needs (naming them)
         */
        public SkiplockClient buildClient() {
            if (!handlers.isEmpty()) {
                throw new IllegalArgumentException("handler: a client runs no jobs; build() an instance to run "
                        + handlers.keySet().iterator().next());
            }
            if (config != null && !config.queues().isEmpty()) {
                throw new IllegalArgumentException("queues: a client serves no queues; build() a worker for "
                        + config.queues().keySet());
            }
            Database database = connect();
            try {
                requireCurrent(new Migrator(database.source(), database.driver()).pending(), database.driver());
                return warmedUp(new Skiplock(this, database.source(), database.owned(), database.driver()));
            } catch (RuntimeException e) {
                database.closeIfOwned();
                throw e;
            }
        }

        private Skiplock warmedUp(Skiplock instance) {
            if (enqueueWarmUp) {
                EnqueueWarmup.run((TenantJobClient) instance.defaultTenant, instance.driverName());
            }
            return instance;
        }

        /** Applies the migrations the schema lacks, then closes the pool it opened; returns their names. */
        public List<String> migrate() {
            Database database = connect();
            try {
                return new Migrator(database.source(), database.driver()).migrate();
            } finally {
                database.closeIfOwned();
            }
        }

        /** The data source to use and its driver; {@code owned}: Skiplock created the pool and closes it. */
        private record Database(DataSource source, Driver driver, boolean owned) {
            void closeIfOwned() {
                if (owned && source instanceof HikariDataSource pool) {
                    pool.close();
                }
            }
        }

        /** The database to use, once its driver found it usable ({@link Driver#requireUsable}). */
        private Database connect() {
            Database database = open();
            try (java.sql.Connection connection = database.source().getConnection()) {
                database.driver().requireUsable(connection);
            } catch (java.sql.SQLException e) {
                database.closeIfOwned();
                throw new SkiplockException("cannot connect to the " + database.driver().name() + " database: "
                        + e.getMessage(), e);
            } catch (RuntimeException e) {
                database.closeIfOwned();
                throw e;
            }
            return database;
        }

        private Database open() {
            if (config == null) {
                throw new IllegalArgumentException("config: is required");
            }
            if ((url == null) == (dataSource == null)) {
                throw new IllegalArgumentException("url: give exactly one of url or dataSource");
            }
            PoolSettings poolSettings = new PoolSettings(user, password, maxPoolSize);
            if (dataSource != null && !poolSettings.equals(PoolSettings.DEFAULTS)) {
                throw new IllegalArgumentException((user != null ? "user" : password != null ? "password" : "maxPoolSize")
                        + ": only with url; a dataSource you give is configured by you");
            }
            if (dataSource != null) {
                return new Database(dataSource, driverForDataSource(dataSource, driver), false);
            }
            Driver chosen = driver != null ? driver : driverForUrl(url);
            String jdbcUrl = jdbcUrlOf(chosen, url).orElseThrow(() -> new IllegalArgumentException("url: driver "
                    + chosen.name() + " does not accept a URL of scheme '" + scheme(url) + "'"));
            // An instance that serves no queue (an enqueue-only client, a CLI command) opens its
            // connections as its callers ask for them, one at first: a pool full from the start
            // opened ten more at once, while its first enqueues ran (issue #12: the separate
            // producer's first jobs started 10-25 ms late), and holds them on the server for good.
            return new Database(openPool(chosen, jdbcUrl, config.queues().isEmpty()
                    ? new PoolSettings(user, password, maxPoolSize, ON_DEMAND_MIN_IDLE) : poolSettings), chosen, true);
        }

        private static void requireCurrent(List<String> pending, Driver driver) {
            if (!pending.isEmpty()) {
                throw new SkiplockException("the " + driver.name() + " schema lacks migrations " + pending
                        + ": a client does not migrate; run `skiplock migrate`, start a worker, or call "
                        + "Skiplock.builder()…migrate()");
            }
        }

        private static DataSource openPool(Driver driver, String jdbcUrl, PoolSettings pool) {
            try {
                return driver.createDataSource(jdbcUrl, pool);
            } catch (IllegalArgumentException e) {
                throw e;
            } catch (RuntimeException e) {
                String reason = e.getCause() != null ? e.getCause().getMessage() : e.getMessage();
                throw new SkiplockException("cannot connect to the " + driver.name() + " database: " + reason, e);
            }
        }

        /** The driver that understands {@code url}: a JDBC URL, or a form of its own such as {@code postgresql://}. */
        /** A refused URL's scheme, all a message says of it: the rest may hold a password. */
        private static String scheme(String url) {
            int colon = url.indexOf(':');
            String scheme = colon < 0 ? url : url.startsWith("jdbc:") ? url.substring(0, Math.max(url.indexOf(':', 5), 5))
                    : url.substring(0, colon);
            return scheme.length() > 40 ? scheme.substring(0, 40) + "…" : scheme;
        }

        private static Driver driverForUrl(String url) {
            for (Driver candidate : ServiceLoader.load(Driver.class)) {
                if (jdbcUrlOf(candidate, url).isPresent()) {
                    return candidate;
                }
            }
            throw new IllegalArgumentException("url: no Skiplock driver accepts a URL of scheme '" + scheme(url)
                    + "' (expected jdbc:postgresql:…,"
                    + " postgresql://… or jdbc:sqlite:…, with skiplock-postgres or skiplock-sqlite on the class path)");
        }

        private static java.util.Optional<String> jdbcUrlOf(Driver driver, String url) {
            try {
                return driver.jdbcUrl(url);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("url: " + e.getMessage(), e);
            }
        }

        /**
         * The driver for {@code source}'s database ({@code chosen} if one was given), once its
         * connections are seen to start in autocommit: Skiplock's single statements commit that way,
         * and on a pool whose connections start in a transaction they would be rolled back when the
         * connection goes back (an enqueue returned, then lost).
         */
        private static Driver driverForDataSource(DataSource source, Driver chosen) {
            String product;
            try (Connection connection = source.getConnection()) {
                if (!connection.getAutoCommit()) {
                    throw new IllegalArgumentException("dataSource: its connections must start in autocommit mode "
                            + "(Skiplock commits its single statements that way; HikariCP: autoCommit=true, the default)");
                }
                product = connection.getMetaData().getDatabaseProductName();
            } catch (SQLException e) {
                throw new SkiplockException("cannot connect to the database: " + e.getMessage(), e);
            }
            if (chosen != null) {
                return chosen;
            }
            for (Driver candidate : ServiceLoader.load(Driver.class)) {
                if (candidate.acceptsProduct(product)) {
                    return candidate;
                }
            }
            throw new IllegalArgumentException("dataSource: no Skiplock driver for database '" + product + "'");
        }
    }
}
