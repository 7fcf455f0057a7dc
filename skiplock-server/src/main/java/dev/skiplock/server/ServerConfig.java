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
 */
public record ServerConfig(String host, int port, long maxBodyBytes, boolean allowCommands,
        Map<String, List<String>> tools) {
    public static final long DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

    public ServerConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: must be between 0 and 65535, got " + port);
        }
        if (maxBodyBytes < 1) {
            throw new IllegalArgumentException("maxBodyBytes: must be positive");
        }
        tools = Map.copyOf(tools);
    }
}
