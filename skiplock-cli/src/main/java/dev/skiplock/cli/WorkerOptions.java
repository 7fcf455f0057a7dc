package dev.skiplock.cli;

import dev.skiplock.SkiplockConfig;
import picocli.CommandLine.Option;

/** Lease settings shared by {@code serve} and {@code worker} (API.md defaults). */
public final class WorkerOptions {
    @Option(names = "--lease", defaultValue = "30s", description = "lease length (default ${DEFAULT-VALUE})")
    String lease;

    @Option(names = "--heartbeat", defaultValue = "10s", description = "heartbeat interval (default ${DEFAULT-VALUE})")
    String heartbeat;

    @Option(names = "--reaper-interval", defaultValue = "15s", description = "reaper interval (default ${DEFAULT-VALUE})")
    String reaperInterval;

    @Option(names = "--poll-interval", defaultValue = "1s", description = "poll interval (default ${DEFAULT-VALUE})")
    String pollInterval;

    SkiplockConfig.Builder apply(SkiplockConfig.Builder builder) {
        return builder.leaseTtl(Durations.parse("--lease", lease))
                .heartbeatInterval(Durations.parse("--heartbeat", heartbeat))
                .reaperInterval(Durations.parse("--reaper-interval", reaperInterval))
                .pollInterval(Durations.parse("--poll-interval", pollInterval));
    }
}
