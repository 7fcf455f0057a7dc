package dev.skiplock.cli.client;

import picocli.CommandLine.Option;

/** {@code --server URL} and {@code --token} (or {@code SKIPLOCK_TOKEN}) for commands that talk to a server. */
public final class ServerOptions {
    @Option(names = "--server", paramLabel = "URL", defaultValue = "http://127.0.0.1:8080",
            description = "Skiplock server (default ${DEFAULT-VALUE})")
    String server;

    @Option(names = "--token", description = "bearer token (default: $SKIPLOCK_TOKEN)")
    String token;

    public ApiClient client() {
        String bearer = token != null ? token : System.getenv("SKIPLOCK_TOKEN");
        return new ApiClient(server, bearer);
    }
}
