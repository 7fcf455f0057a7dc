package dev.skiplock.cli;

import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code skiplock serve}: HTTP API + workers + reaper on one database; runs until SIGTERM/SIGINT. */
@Command(name = "serve", description = "Run the HTTP API with workers (SQLite by default).")
final class ServeCommand implements Callable<Integer> {
    static final int DEFAULT_CONCURRENCY = 8;

    @ParentCommand
    Main cli;

    @Mixin
    WorkerOptions workerOptions;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to listen on (default ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--port", defaultValue = "8080", description = "port, 0 for any free one (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--config", description = "YAML config file (queues, tools, retention)")
    Path config;

    @Option(names = "--tools", description = "tools file (YAML or JSON): {name: {argv: [...]}}")
    Path tools;

    @Option(names = "--concurrency", description = "jobs per queue this process runs at once, as for "
            + "'skiplock worker'; 0 = API only (default " + DEFAULT_CONCURRENCY + ")")
    Integer concurrency;

    /** The name {@code --concurrency} had before it matched {@code skiplock worker}'s; kept as a deprecated alias. */
    @Option(names = "--workers", hidden = true)
    Integer workers;

    @Spec
    CommandSpec spec;

    @Option(names = "--queues", split = ",", description = "queues to work (default: default, plus the config's)")
    List<String> queues;

    @Option(names = "--allow-commands", description = "accept command jobs with any argv (otherwise only tools)")
    boolean allowCommands;

    @Option(names = "--no-queue", description = "fallback mode: run each submitted job at once, answer when done")
    boolean noQueue;

    @Option(names = "--max-concurrent", defaultValue = "4",
            description = "fallback mode: jobs at once; more get 429 (default ${DEFAULT-VALUE})")
    int maxConcurrent;

    @Option(names = "--tokens", description = "tokens file: '<tenant> <sha256-hex>' per line (default: $SKIPLOCK_TOKENS_FILE)")
    Path tokens;

    @Option(names = "--max-body", defaultValue = "1048576", description = "largest request body in bytes (default ${DEFAULT-VALUE})")
    long maxBody;

    /**
     * This process's worker concurrency per queue: {@code --concurrency}, or its deprecated alias
     * {@code --workers} (which prints a one-line warning on stderr), or the default.
     */
    int concurrency() {
        String name = "--concurrency";
        Integer given = concurrency;
        if (workers != null) {
            if (concurrency != null) {
                throw new IllegalArgumentException("--workers: deprecated name of --concurrency; give only --concurrency");
            }
            spec.commandLine().getErr().println("skiplock: --workers is deprecated; use --concurrency");
            name = "--workers";
            given = workers;
        }
        int value = given != null ? given : DEFAULT_CONCURRENCY;
        if (value < 0 || value > SkiplockConfig.MAX_CONCURRENCY) {
            throw new IllegalArgumentException(name + ": must be between 0 and " + SkiplockConfig.MAX_CONCURRENCY);
        }
        return value;
    }

    /**
     * The queues this process works, each with its concurrency (none: API only, {@code --concurrency 0}):
     * {@code --queues}, else {@code default} and the config file's queues; each at the concurrency
     * given by flag (flags win), else at the config file's for it, else at the default.
     */
    Map<String, Integer> workedQueues(ServiceConfigFile file) {
        boolean given = concurrency != null || workers != null;
        int perQueue = concurrency();
        Map<String, Integer> work = new LinkedHashMap<>();
        if (given && perQueue == 0) {
            return work;
        }
        List<String> names = queues != null ? queues
                : java.util.stream.Stream.concat(java.util.stream.Stream.of("default"), file.queues().keySet().stream())
                        .distinct().toList();
        names.forEach(queue -> work.put(queue, given ? perQueue : file.queues().getOrDefault(queue, DEFAULT_CONCURRENCY)));
        return work;
    }

    @Override
    public Integer call() throws Exception {
        if (maxConcurrent < 1 || maxConcurrent > SkiplockConfig.MAX_CONCURRENCY) {
            throw new IllegalArgumentException("--max-concurrent: must be between 1 and " + SkiplockConfig.MAX_CONCURRENCY);
        }
        Path tokensFile = tokens != null ? tokens
                : System.getenv("SKIPLOCK_TOKENS_FILE") != null ? Path.of(System.getenv("SKIPLOCK_TOKENS_FILE")) : null;
        Map<String, String> tokenMap = tokensFile == null ? Map.of() : TokensFile.read(tokensFile);
        ServiceConfigFile file = config == null ? ServiceConfigFile.empty() : ServiceConfigFile.read(config);
        Map<String, List<String>> toolMap = new LinkedHashMap<>(file.tools());
        if (tools != null) {
            toolMap.putAll(ServiceConfigFile.readTools(tools));
        }
        SkiplockConfig.Builder builder = workerOptions.apply(SkiplockConfig.builder());
        if (file.retention() != null) {
            builder.retention(file.retention());
        }
        if (noQueue) {
            builder.queue(ServerConfig.FALLBACK_QUEUE, maxConcurrent);
        } else {
            workedQueues(file).forEach(builder::queue);
        }
        ServerConfig serverConfig = new ServerConfig(host, port, maxBody, allowCommands, toolMap, tokenMap,
                noQueue ? maxConcurrent : null, file.cron());
        SkiplockServer.check(serverConfig); // before the database is touched: refused options change nothing
        Skiplock skiplock = workerOptions.builder(cli.options().jdbcUrl(), WorkerOptions.build(builder, WorkerOptions.OPTION_OF_FIELD)).build();
        SkiplockServer server;
        try {
            // The server first: /metrics joins the instance's meters before its workers claim, so
            // that no job they finish is missing from it.
            server = SkiplockServer.start(skiplock, serverConfig);
        } catch (RuntimeException e) {
            skiplock.close();
            if (causedByBind(e)) {
                throw new IllegalArgumentException("--port: cannot listen on " + hostAndPort(host, port) + ": "
                        + innermostMessage(e) + " (another process listens there, the port needs privileges, or"
                        + " --host is not this host's)");
            }
            throw e;
        }
        try {
            skiplock.start();
        } catch (RuntimeException e) {
            server.close();
            skiplock.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            skiplock.close();
            stopped.countDown();
        }, "skiplock-shutdown"));
        System.out.println("skiplock serving on http://" + hostAndPort(host, server.port()) + " (" + skiplock.driverName()
                + ", " + (noQueue ? "fallback mode, " + maxConcurrent + " at once"
                        : !skiplock.config().queues().isEmpty() ? skiplock.config().queues() + " workers" : "API only") + ")");
        System.out.flush();
        stopped.await();
        return 0;
    }

    /** Whether the server could not bind its address: Javalin's bind exception, or a BindException under it. */
    private static boolean causedByBind(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.net.BindException || cause.getClass().getSimpleName().equals("JavalinBindException")) {
                return true;
            }
        }
        return false;
    }

    /** The message of the innermost cause that has one (the system's, such as "Address already in use"). */
    private static String innermostMessage(Throwable failure) {
        String message = failure.getMessage();
        for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null) {
                message = cause.getMessage();
            }
        }
        return String.valueOf(message).lines().findFirst().orElse("");
    }

    /** {@code host:port}, an IPv6 address in brackets (as a URL takes it). */
    private static String hostAndPort(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
