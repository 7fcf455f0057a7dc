package dev.skiplock.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.HandlerProvider;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.server.SkiplockServer;
import dev.skiplock.spi.PoolSettings;
import java.util.ServiceLoader;
import picocli.CommandLine.Option;

/** Worker settings shared by {@code serve} and {@code worker}: leases (API.md defaults), pool and handlers. */
public final class WorkerOptions {
    @Option(names = "--lease", defaultValue = "30s", description = "lease length (default ${DEFAULT-VALUE})")
    String lease;

    @Option(names = "--heartbeat", defaultValue = "10s", description = "heartbeat interval (default ${DEFAULT-VALUE})")
    String heartbeat;

    @Option(names = "--reaper-interval", defaultValue = "15s", description = "reaper interval (default ${DEFAULT-VALUE})")
    String reaperInterval;

    @Option(names = "--poll-interval", defaultValue = "1s", description = "poll interval (default ${DEFAULT-VALUE})")
    String pollInterval;

    @Option(names = "--run-dir", description = "where command jobs keep pid, output and exit code; worker processes "
            + "of one host share it to adopt each other's commands (default: $TMPDIR/skiplock-runs)")
    java.nio.file.Path runDir;

    @Option(names = "--max-output-bytes", description = "what a command job's run keeps of each of its stdout and "
            + "stderr, on disk and in its log; a command that prints more runs on (default 64 MiB)")
    Long maxOutputBytes;

    @Option(names = "--host-id", description = "this host's name in the worker registry; a command job is adopted "
            + "only by workers of the host its run lives on while one of them is alive (default: the host name)")
    String hostId;

    @Option(names = "--pool-size", description = "connections in this process's pool (2 to 1000; default 11 on "
            + "PostgreSQL, plus one for notifications; 4 on SQLite)")
    Integer poolSize;

    /**
     * This process's instance on {@code url}: its pool, {@code config}, kind {@code command}, plus the
     * handlers of every {@link HandlerProvider} on the classpath.
     */
    Skiplock.Builder builder(String url, SkiplockConfig config) {
        PoolSettings.requireSize("--pool-size", poolSize);
        if (maxOutputBytes != null && maxOutputBytes < 1) {
            throw new IllegalArgumentException("--max-output-bytes: must be at least 1, got " + maxOutputBytes);
        }
        Skiplock.Builder builder = Skiplock.builder().url(url).config(config);
        if (poolSize != null) {
            builder.maxPoolSize(poolSize);
        }
        builder.handler("command", JsonNode.class,
                SkiplockServer.commandRunner(runDir != null ? runDir : SkiplockServer.DEFAULT_RUN_DIR,
                        config.maxStepOutputBytes(),
                        maxOutputBytes != null ? maxOutputBytes : SkiplockServer.DEFAULT_MAX_OUTPUT_BYTES));
        ServiceLoader.load(HandlerProvider.class).forEach(provider -> provider.register(builder));
        return builder;
    }

    /** The options of {@link SkiplockConfig}'s fields that these options set. */
    static final java.util.Map<String, String> OPTION_OF_FIELD = java.util.Map.of("leaseTtl", "--lease",
            "heartbeatInterval", "--heartbeat", "reaperInterval", "--reaper-interval", "pollInterval", "--poll-interval",
            "hostId", "--host-id");

    /**
     * Builds the configuration; a value it refuses is named by its option (exit 2), not by the
     * library's field ("heartbeatInterval: must be shorter than leaseTtl" → "--heartbeat: … --lease").
     * {@code optionOfField} maps the fields the command set from its options.
     */
    static SkiplockConfig build(SkiplockConfig.Builder builder, java.util.Map<String, String> optionOfField) {
        try {
            return builder.build();
        } catch (IllegalArgumentException refused) {
            String message = refused.getMessage();
            int colon = message.indexOf(':');
            String option = colon < 0 ? null : optionOfField.get(message.substring(0, colon));
            if (option == null) {
                throw refused;
            }
            message = option + message.substring(colon);
            for (var named : optionOfField.entrySet()) {
                if (!named.getKey().equals(named.getKey().toLowerCase(java.util.Locale.ROOT))) {
                    // a field named in the text (leaseTtl): camel case, never a word of the prose
                    message = message.replace(named.getKey(), named.getValue());
                }
            }
            throw new IllegalArgumentException(message, refused);
        }
    }

    SkiplockConfig.Builder apply(SkiplockConfig.Builder builder) {
        if (hostId != null) {
            builder.hostId(hostId);
        }
        return builder.leaseTtl(Durations.parse("--lease", lease))
                .heartbeatInterval(Durations.parse("--heartbeat", heartbeat))
                .reaperInterval(Durations.parse("--reaper-interval", reaperInterval))
                .pollInterval(Durations.parse("--poll-interval", pollInterval));
    }
}
