package dev.skiplock.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.cli.Durations;
import dev.skiplock.cli.Main;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code skiplock top [--interval 2s] [--once]}: queues and workers, refreshed in place on a terminal
 * (ANSI cursor control); in a pipe each refresh appends a plain frame; {@code --once} prints one plain
 * frame and exits.
 */
@Command(name = "top", description = "Live view of queues (counts by status, finished jobs per second) and workers.")
public final class TopCommand implements Callable<Integer> {
    private static final String HOME = "\033[H";
    private static final String CLEAR_SCREEN = "\033[H\033[2J";
    private static final String CLEAR_LINE_END = "\033[K";
    private static final String CLEAR_BELOW = "\033[J";

    @ParentCommand
    Main cli;

    @Option(names = "--interval", defaultValue = "2s", description = "time between refreshes (default ${DEFAULT-VALUE})")
    String interval;

    @Option(names = "--once", description = "print one plain frame and exit (for scripts)")
    boolean once;

    @Override
    public Integer call() throws InterruptedException {
        Duration every = Durations.parse("--interval", interval);
        if (every.toMillis() < 100) {
            throw new IllegalArgumentException("--interval: must be at least 100ms, got '" + interval + "'");
        }
        ApiClient client = cli.options().client();
        boolean live = !once && cli.options().live();
        PrintStream out = System.out;
        TopFrame.Sample previous = null;
        for (boolean first = true; ; first = false) {
            TopFrame.Sample current = sample(client);
            List<String> frame = TopFrame.lines(cli.options().server(), every, previous, current);
            if (live) {
                out.print(first ? CLEAR_SCREEN : HOME);
                frame.forEach(line -> out.print(line + CLEAR_LINE_END + "\n"));
                out.print(CLEAR_BELOW);
            } else {
                if (!first) {
                    out.println();
                }
                frame.forEach(out::println);
            }
            out.flush();
            if (once || out.checkError()) {
                return 0; // a reader that went away (top | head): a PrintStream swallows the broken pipe
            }
            previous = current;
            Thread.sleep(every);
        }
    }

    /** Reads both endpoints; the worker registry needs an admin token, so a refusal is shown, not fatal. */
    private static TopFrame.Sample sample(ApiClient client) {
        JsonNode queues = client.get("/api/v1/queues");
        Instant at = Instant.now();
        try {
            return new TopFrame.Sample(at, queues, client.get("/api/v1/workers").path("workers"), null);
        } catch (CliFailure refused) {
            if (refused.exitCode() != Main.EXIT_USAGE) {
                throw refused;
            }
            return new TopFrame.Sample(at, queues, null, refused.getMessage());
        }
    }
}
