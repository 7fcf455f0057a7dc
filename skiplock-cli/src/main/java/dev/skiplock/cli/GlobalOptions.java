package dev.skiplock.cli;

import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockClient;
import dev.skiplock.cli.client.ApiClient;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The global options (API.md): declared once on {@code skiplock} with {@link ScopeType#INHERIT}, so
 * picocli adds them to every subcommand and they are accepted before or after it; either way the
 * value lands here. A command reads them through its {@code @ParentCommand Main}.
 */
public final class GlobalOptions {
    static final String DEFAULT_SERVER = "http://127.0.0.1:8080";

    @Option(names = "--db", paramLabel = "URL", scope = ScopeType.INHERIT, defaultValue = DatabaseUrl.DEFAULT,
            description = "database of serve, worker, migrate, bench, demo (and of signal, given without --server): "
                    + "JDBC URL or postgresql://… (default: ${DEFAULT-VALUE})")
    String db;

    @Option(names = "--server", paramLabel = "URL", scope = ScopeType.INHERIT, defaultValue = DEFAULT_SERVER,
            description = "server the other commands talk to (default ${DEFAULT-VALUE})")
    String server;

    @Option(names = "--token", scope = ScopeType.INHERIT, description = "bearer token for --server (default: $SKIPLOCK_TOKEN)")
    String token;

    @Option(names = "--plain", scope = ScopeType.INHERIT,
            description = "no live status line or redrawn screen, as when piped (also: SKIPLOCK_PLAIN set)")
    boolean plain;

    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    public String jdbcUrl() {
        return DatabaseUrl.toJdbc(db);
    }

    /**
     * Whether a command that can work either way goes to the database itself: {@code --db} was given
     * (before or after the subcommand) and {@code --server} was not. Both have defaults, so only what
     * was typed can tell.
     */
    public boolean databaseChosen() {
        return given("--db") && !given("--server");
    }

    private boolean given(String option) {
        for (ParseResult parsed = command.commandLine().getParseResult(); parsed != null; parsed = parsed.subcommand()) {
            if (parsed.hasMatchedOption(option)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A client of the {@code --db} database, tenant {@code default}; the caller closes it. Built for
     * one command, without the enqueue warm-up (it would cost the command what it saves).
     */
    public SkiplockClient databaseClient() {
        return Skiplock.builder().url(jdbcUrl()).enqueueWarmUp(false).buildClient();
    }

    /** The server URL as given (or its default). */
    public String server() {
        return server;
    }

    public ApiClient client() {
        return new ApiClient(server, token != null ? token : System.getenv("SKIPLOCK_TOKEN"));
    }

    /** Whether to draw live lines and screens: on an interactive terminal unless {@code --plain} or {@code SKIPLOCK_PLAIN}. */
    public boolean live() {
        return !plain && System.getenv("SKIPLOCK_PLAIN") == null && Terminal.interactive();
    }

    /** {@link #live} for what is drawn on stderr (the status line, the bench's progress): stderr a terminal too. */
    public boolean liveOnStderr() {
        return live() && Terminal.errorsToTerminal();
    }
}
