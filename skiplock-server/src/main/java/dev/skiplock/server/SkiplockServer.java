package dev.skiplock.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobNotFoundException;
import dev.skiplock.JobStateException;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockException;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP face of a {@link Skiplock} instance (API.md): jobs, events (list, NDJSON, SSE), queues,
 * workers, health and metrics, and the dashboard's static files at {@code /}. Calls the public API only.
 * Handlers run on virtual threads.
 */
public final class SkiplockServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SkiplockServer.class);
    /** Grace between SIGTERM and SIGKILL when a command is cancelled or times out. */
    public static final Duration COMMAND_GRACE = Duration.ofSeconds(5);
    /** Where command runs live unless told otherwise: shared by every worker process of the host. */
    public static final java.nio.file.Path DEFAULT_RUN_DIR =
            java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "skiplock-runs");
    /**
     * What a command run keeps of each output stream unless told otherwise (64 MiB): bounds what one
     * job that prints without end takes of the host's disk and of the database.
     */
    public static final long DEFAULT_MAX_OUTPUT_BYTES = 64L * 1024 * 1024;

    /** Where the dashboard's files sit in this jar. */
    static final String DASHBOARD = "/dev/skiplock/server/dashboard";

    private final Javalin app;
    private final CronScheduler cron;
    private final Skiplock skiplock;
    private final PrometheusMeterRegistry prometheus;

    private SkiplockServer(Javalin app, CronScheduler cron, Skiplock skiplock, PrometheusMeterRegistry prometheus) {
        this.app = app;
        this.cron = cron;
        this.skiplock = skiplock;
        this.prometheus = prometheus;
    }

    /** The handler to register for kind {@code command} on workers of this service. */
    public static dev.skiplock.JobHandler<JsonNode> commandRunner() {
        return commandRunner(DEFAULT_RUN_DIR);
    }

    /**
     * The handler for kind {@code command}, keeping each run's pid, output and exit code under
     * {@code runDir}: the worker processes of one host must share it to adopt each other's commands.
     * Each run's directory there is the user's alone ({@code rwx------}); {@code runDir} is made so
     * if missing, and left as it is otherwise.
     *
     * A step file is read up to the largest {@code maxStepOutputBytes} (16 MiB): give the instance's
     * to {@link #commandRunner(java.nio.file.Path, int)} to refuse larger ones unread.
     *
     * @throws IllegalStateException if {@code runDir} is another user's, not a directory, or
     *                               writable by others without the sticky bit
     */
    public static dev.skiplock.JobHandler<JsonNode> commandRunner(java.nio.file.Path runDir) {
        return commandRunner(runDir, dev.skiplock.SkiplockConfig.MAX_STEP_OUTPUT_BYTES_LIMIT);
    }

    /**
     * As {@link #commandRunner(java.nio.file.Path)}, refusing unread a step file larger than
     * {@code maxStepOutputBytes}: give the instance's {@link dev.skiplock.SkiplockConfig#maxStepOutputBytes()}.
     * The instance refuses a larger output anyway, but only after the file was read and parsed, which
     * for a file of the largest limit (16 MiB of small numbers, say) takes far more heap than a small
     * worker process has.
     *
     * @throws IllegalArgumentException if {@code maxStepOutputBytes} is out of the range
     *                                  {@code SkiplockConfig} takes
     */
    public static dev.skiplock.JobHandler<JsonNode> commandRunner(java.nio.file.Path runDir, int maxStepOutputBytes) {
        return commandRunner(runDir, maxStepOutputBytes, DEFAULT_MAX_OUTPUT_BYTES);
    }

    /**
     * As {@link #commandRunner(java.nio.file.Path, int)}, keeping at most {@code maxOutputBytes} of
     * each of a run's output streams ({@value #DEFAULT_MAX_OUTPUT_BYTES} bytes by default), on disk
     * and in the job's log. A command that prints more runs on; the rest of that stream is read
     * away unkept, and its log says so on stream {@code skiplock}.
     *
     * @throws IllegalArgumentException if {@code maxStepOutputBytes} is out of the range
     *                                  {@code SkiplockConfig} takes, or {@code maxOutputBytes} is below 1
     */
    public static dev.skiplock.JobHandler<JsonNode> commandRunner(java.nio.file.Path runDir, int maxStepOutputBytes,
            long maxOutputBytes) {
        if (maxStepOutputBytes < 1 || maxStepOutputBytes > dev.skiplock.SkiplockConfig.MAX_STEP_OUTPUT_BYTES_LIMIT) {
            throw new IllegalArgumentException("maxStepOutputBytes: must be between 1 and "
                    + dev.skiplock.SkiplockConfig.MAX_STEP_OUTPUT_BYTES_LIMIT + ", got " + maxStepOutputBytes);
        }
        if (maxOutputBytes < 1) {
            throw new IllegalArgumentException("maxOutputBytes: must be at least 1, got " + maxOutputBytes);
        }
        return new CommandRunner(COMMAND_GRACE, runDir, maxStepOutputBytes, maxOutputBytes);
    }

    /**
     * A job as the API answers it (the job JSON of API.md), for the CLI when it prints a job it got
     * from the library rather than from a server.
     */
    public static JsonNode jobJson(dev.skiplock.Job job) {
        return JobJson.job(job);
    }

    /**
     * Refuses a configuration the server would refuse at {@link #start}, with the same
     * {@code IllegalArgumentException} naming the field, without a database: tool names, tokens, the
     * loopback rule and the {@code cron} entries. A caller that checks first changes nothing (no
     * migration, no worker row) for a configuration that cannot serve.
     */
    public static void check(ServerConfig config) {
        Tools tools = new Tools(config.tools(), config.allowCommands());
        Auth.checkTokens(config.tokens());
        if (config.tokens().isEmpty() && !isLoopback(config.host())) {
            throw new IllegalArgumentException("host: without tokens the server listens on loopback only; "
                    + "configure --tokens to listen on " + config.host());
        }
        CronScheduler.check(config.cron(), new SubmitParser(tools));
    }

    /** Starts serving {@code skiplock}; returns once the port is bound. */
    public static SkiplockServer start(Skiplock skiplock, ServerConfig config) {
        check(config);
        Tools tools = new Tools(config.tools(), config.allowCommands());
        Auth auth = new Auth(config.tokens(), skiplock, config.host());
        SubmitParser parser = new SubmitParser(tools);
        CronScheduler cron = CronScheduler.create(config.cron(), parser, skiplock, skiplock.config().clock());
        JobsApi jobs = new JobsApi(auth, parser, config.maxBodyBytes(), config.fallbackCap());
        EventsApi events = new EventsApi(auth);
        PrometheusMeterRegistry prometheus = prometheus(skiplock);
        AdminApi admin = new AdminApi(skiplock, auth, prometheus);
        Javalin app;
        try {
            app = javalin(config, auth, jobs, events, admin).start();
        } catch (RuntimeException e) { // the port cannot be bound: nothing of this server may go on
            skiplock.meterRegistry().remove(prometheus);
            prometheus.close();
            throw e;
        }
        cron.start(); // once the port is bound: a server that failed to start enqueues nothing
        return new SkiplockServer(app, cron, skiplock, prometheus);
    }

    /** The server's routes, with its checks and error answers; not yet started. */
    private static Javalin javalin(ServerConfig config, Auth auth, JobsApi jobs, EventsApi events, AdminApi admin) {
        return Javalin.create(javalin -> {
            javalin.jetty.host = config.host();
            javalin.jetty.port = config.port();
            javalin.concurrency.useVirtualThreads = true;
            javalin.http.maxRequestSize = config.maxBodyBytes();
            javalin.startup.showJavalinBanner = false;
            javalin.routes.before("/api/v1/*", auth::authenticate);
            javalin.routes.before("/api/v1/*", Requests::wellFormedQuery);
            javalin.routes.before("/metrics", auth::localOnly); // queue and kind names, counts
            dashboard(javalin);
            javalin.routes.get("/api/v1/whoami", auth::whoami);
            jobs.register(javalin.routes);
            events.register(javalin.routes);
            admin.register(javalin.routes);
            javalin.routes.exception(ApiError.class, (error, ctx) -> send(ctx, error));
            javalin.routes.exception(IllegalArgumentException.class, (error, ctx) -> send(ctx, ApiError.invalid(error)));
            javalin.routes.exception(JobNotFoundException.class, (error, ctx) -> send(ctx, ApiError.notFound("job")));
            javalin.routes.exception(JobStateException.class, (error, ctx) ->
                    send(ctx, ApiError.conflict(error.getMessage())));
            javalin.routes.exception(SkiplockException.class, (error, ctx) -> {
                LOG.warn("database failure answering {} {}: {}", ctx.method(), ctx.path(), error.getMessage());
                send(ctx, new ApiError(503, "unavailable", "database unavailable", null));
            });
            javalin.routes.exception(io.javalin.http.HttpResponseException.class, (error, ctx) ->
                    send(ctx, new ApiError(error.getStatus(), error.getStatus() == 413 ? "payload_too_large"
                            : "invalid_argument", error.getMessage(), null)));
            javalin.routes.exception(Exception.class, (error, ctx) -> {
                LOG.error("unexpected failure answering {} {}", ctx.method(), ctx.path(), error);
                send(ctx, new ApiError(500, "internal", "internal error", null));
            });
            javalin.routes.error(404, "*", ctx -> {
                if (ctx.result() == null || ctx.result().isEmpty()) {
                    send(ctx, ApiError.notFound("route " + ctx.method() + " " + ctx.path()));
                }
            });
        });
    }

    /** The registry {@code /metrics} scrapes: Skiplock's meters (added to the instance's composite) and the JVM's. */
    private static PrometheusMeterRegistry prometheus(Skiplock skiplock) {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(prometheus);
        new JvmThreadMetrics().bindTo(prometheus);
        new UptimeMetrics().bindTo(prometheus);
        skiplock.meterRegistry().add(prometheus);
        return prometheus;
    }

    /**
     * The dashboard: static files from this jar at {@code /} (no token: the page asks for one when the
     * API answers 401). Served by Javalin's resource handler, so they are no route of {@link #routes()}.
     * The page loads only its own files (no CDN), which the policy header makes a rule, and no other
     * page may frame it: a page on another port of this host could lay a button under a click, and the
     * framed page's own calls pass {@link LocalCallers}' check of Host and Origin.
     */
    private static void dashboard(io.javalin.config.JavalinConfig javalin) {
        javalin.staticFiles.add(files -> {
            files.hostedPath = "/";
            files.directory = DASHBOARD;
            files.location = io.javalin.http.staticfiles.Location.CLASSPATH;
            files.headers = Map.of("Content-Security-Policy",
                    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'", "X-Frame-Options", "DENY",
                    "X-Content-Type-Options", "nosniff", "Cache-Control", "no-cache");
        });
    }

    private static boolean isLoopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("host: unknown host '" + host + "'");
        }
    }

    public int port() {
        return app.port();
    }

    /** One route this server answers: an HTTP method and a path template ({@code {id}} stands for a parameter). */
    public record Route(String method, String path) {
    }

    /**
     * The routes as registered with the HTTP server (before-handlers left out), so that a description
     * of the API can be checked against what is served rather than against a second list.
     */
    public List<Route> routes() {
        // Javalin 7 shows its router only through `unsafe`; read-only use, after start.
        return app.unsafe.internalRouter.allHttpHandlers().stream()
                .map(handler -> handler.endpoint)
                .filter(endpoint -> endpoint.method.isHttpMethod())
                .map(endpoint -> new Route(endpoint.method.name(), endpoint.path))
                .toList();
    }

    static void send(Context ctx, ApiError error) {
        var body = ServerJson.object();
        var detail = body.putObject("error");
        detail.put("code", error.code);
        detail.put("message", error.getMessage());
        detail.put("field", error.field);
        ctx.status(error.status).contentType("application/json").result(body.toString());
    }

    static void json(Context ctx, int status, JsonNode body) {
        ctx.status(status).contentType("application/json").result(body.toString());
    }

    @Override
    public void close() {
        cron.close();
        app.stop();
        skiplock.meterRegistry().remove(prometheus);
        prometheus.close();
    }
}
