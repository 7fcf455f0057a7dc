package dev.skiplock.server;

import java.util.List;
import java.util.Map;

/**
 * Settings of the HTTP service.
 *
 * @param port          0 picks a free port (see {@link SkiplockServer#port()})
 * @param maxBodyBytes  larger request bodies get 413 (default 1 MiB)
 * @param allowCommands accept command jobs with any argv; otherwise only configured tools
 * @param tools         tool name → argv template with {@code {param}} placeholders
 * @param tokens        SHA-256 hex of a token → its tenant ({@code *} = admin); empty = no auth, loopback only
 * @param cron          periodic jobs to enqueue (empty: none)
 * @param fallbackCap   fallback mode ({@code --no-queue}) when set: submits run at once, at most this many
 *                      together, on queue {@value #FALLBACK_QUEUE}; more get 429 with Retry-After
 */
public record ServerConfig(String host, int port, long maxBodyBytes, boolean allowCommands,
        Map<String, List<String>> tools, Map<String, String> tokens, Integer fallbackCap, List<CronEntry> cron) {
    /** The queue fallback-mode jobs run on; the server's own workers serve it. */
    public static final String FALLBACK_QUEUE = "skiplock.fallback";

    public static final long DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

    public ServerConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: must be between 0 and 65535, got " + port);
        }
        if (maxBodyBytes < 1) {
            throw new IllegalArgumentException("maxBodyBytes: must be positive");
        }
        tools = Map.copyOf(tools);
        tokens = Map.copyOf(tokens);
        cron = List.copyOf(cron);
        if (fallbackCap != null && fallbackCap < 1) {
            throw new IllegalArgumentException("max-concurrent: must be at least 1");
        }
    }

    /** No tokens: one tenant, loopback only. */
    public ServerConfig(String host, int port, long maxBodyBytes, boolean allowCommands,
            Map<String, List<String>> tools) {
        this(host, port, maxBodyBytes, allowCommands, tools, Map.of(), null, List.of());
    }
}
