package dev.skiplock.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobStatus;
import dev.skiplock.cli.Main;
import dev.skiplock.cli.Terminal;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code skiplock logs [-f] ID}: prints a job's events; {@code -f} follows until the job ends. */
@Command(name = "logs", description = "Print a job's events; -f follows until it ends (with a live status line on a terminal).")
public final class LogsCommand implements Callable<Integer> {
    /** Log streams printed on stderr: a command's own, and Skiplock's notes about its run. */
    private static final java.util.Set<String> TO_STDERR = java.util.Set.of("stderr", "skiplock");

    @ParentCommand
    Main cli;

    @Option(names = {"-f", "--follow"})
    boolean follow;

    @Parameters(paramLabel = "ID")
    String id;

    @Override
    public Integer call() {
        String job = JobIds.parse(id).toString();
        ApiClient client = cli.options().client();
        if (follow) {
            follow(client, job, false, cli.options().liveOnStderr());
            return 0;
        }
        // the recorded events a line at a time: a job's whole log as one document could outgrow the heap
        client.stream("/api/v1/jobs/" + job + "/events/download", event -> {
            print(event);
            return false;
        });
        return 0;
    }

    /**
     * Follows ({@link EventFollower}: over SSE, opened again after a silent or cut connection) until
     * the server ends the stream, after the terminal status of a job still terminal
     * (a job retried since an earlier terminal status is followed into its next attempt); returns 0
     * if the job succeeded, 1 if not (for --wait). {@code quiet} prints only the job's own output;
     * {@code live} adds the {@link StatusLine}.
     */
    static int follow(ApiClient client, String id, boolean quiet, boolean live) {
        AtomicReference<String> terminal = new AtomicReference<>();
        try (StatusLine line = live ? StatusLine.live(System.err) : StatusLine.plain()) {
            new EventFollower(client, EventFollower.IDLE).follow(id, event -> {
                boolean shown = !quiet || event.path("type").asText().equals("log");
                line.show(event, () -> {
                    if (shown) {
                        print(event);
                    }
                });
                if (event.path("type").asText().equals("status")) {
                    String status = event.path("status").asText();
                    terminal.set(JobStatus.fromWireName(status).isTerminal() ? status : null);
                }
                // logs -f ID | head -1: the reader went away, stop following; submit --wait follows on
                // to exit with the job's outcome
                return !quiet && System.out.checkError();
            });
        }
        return "succeeded".equals(terminal.get()) ? 0 : 1;
    }

    /**
     * Prints {@code event}: a log line on its stream, anything else on stdout. To a terminal, its
     * control characters are shown, not sent ({@link Terminal#shown}); to a pipe or a file, as stored.
     */
    static void print(JsonNode event) {
        boolean toStderr = event.path("type").asText().equals("log") && TO_STDERR.contains(event.path("stream").asText());
        String line = line(event);
        if (toStderr) {
            System.err.println(Terminal.errorOutputToTerminal() ? Terminal.shown(line) : line);
        } else {
            System.out.println(Terminal.outputToTerminal() ? Terminal.shown(line) : line);
        }
        System.out.flush();
    }

    /** The line {@link #print} prints for {@code event}. */
    static String line(JsonNode event) {
        return switch (event.path("type").asText()) {
            case "log" -> event.path("message").asText();
            case "status" -> "[" + event.path("ts").asText() + "] " + event.path("status").asText()
                    + (event.path("message").isTextual() ? " (" + event.path("message").asText() + ")" : "");
            default -> "[" + event.path("ts").asText() + "] " + event.path("type").asText() + " " + event.path("data");
        };
    }
}
