package dev.skiplock.cli.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.cli.Durations;
import dev.skiplock.cli.CliJson;
import dev.skiplock.cli.Main;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code skiplock submit … -- CMD ARGS…} or {@code --kind K --args JSON}: prints the job id. */
@Command(name = "submit", description = "Enqueue a command job (or any kind with --kind/--args); prints its id.")
public final class SubmitCommand implements Callable<Integer> {
    @ParentCommand
    Main cli;

    @Option(names = "--queue")
    String queue;

    @Option(names = "--priority")
    Integer priority;

    @Option(names = "--max-attempts")
    Integer maxAttempts;

    @Option(names = "--timeout", description = "e.g. 30s, 5m")
    String timeout;

    @Option(names = "--run-at", description = "ISO-8601 time, e.g. 2026-12-01T08:00:00Z")
    String runAt;

    @Option(names = "--depends-on")
    List<String> dependsOn;

    @Option(names = "--unique-key")
    String uniqueKey;

    @Option(names = "--kind", description = "job kind (default: command)")
    String kind;

    @Option(names = "--args", description = "job args as JSON (with --kind; for kind command instead of CMD:"
            + " {\"argv\": [...], \"env\": {...}, \"cwd\": \"...\"} or {\"tool\": \"name\", \"params\": {...}})")
    String args;

    @Option(names = "--wait", description = "follow the job (a live status line on a terminal) and exit 0 if it succeeded, 1 if not")
    boolean await;

    @Parameters(paramLabel = "CMD", description = "command and arguments (after --)")
    List<String> command;

    @Override
    public Integer call() {
        boolean commandKind = kind == null || kind.equals("command");
        boolean hasCommand = command != null && !command.isEmpty();
        if (hasCommand && !commandKind) {
            throw new IllegalArgumentException("CMD: only command jobs take a command; use --args for " + kind);
        }
        if (hasCommand && args != null) {
            throw new IllegalArgumentException("--args: give the command either after -- or as --args, not both");
        }
        if (commandKind && !hasCommand && args == null) {
            throw new IllegalArgumentException("CMD: give the command after --, e.g. skiplock submit -- echo hi");
        }
        ObjectNode body = CliJson.object();
        body.put("kind", commandKind ? "command" : kind);
        if (hasCommand) {
            body.putObject("args").set("argv", CliJson.MAPPER.valueToTree(command));
        } else {
            body.set("args", args == null ? CliJson.object() : CliJson.parse("--args", args));
        }
        if (queue != null) {
            body.put("queue", queue);
        }
        if (priority != null) {
            body.put("priority", priority);
        }
        if (maxAttempts != null) {
            body.put("maxAttempts", maxAttempts);
        }
        if (timeout != null) {
            body.put("timeoutSeconds", timeoutSeconds());
        }
        if (runAt != null) {
            body.put("runAt", runAt);
        }
        if (dependsOn != null) {
            body.set("dependsOn", CliJson.MAPPER.valueToTree(dependsOn));
        }
        if (uniqueKey != null) {
            body.put("uniqueKey", uniqueKey);
        }
        ApiClient client = cli.options().client();
        String id = client.post("/api/v1/jobs", body).path("id").asText();
        System.out.println(id);
        return await ? LogsCommand.follow(client, id, true, cli.options().liveOnStderr()) : 0;
    }

    /** {@code --timeout} as the API's {@code timeoutSeconds}: whole seconds, never cut silently (500ms was 0, 1500ms 1). */
    private long timeoutSeconds() {
        java.time.Duration limit = Durations.parse("--timeout", timeout);
        if (limit.toMillis() < 1000 || limit.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("--timeout: must be whole seconds, at least 1s, e.g. 30s or 5m; got '"
                    + timeout + "'");
        }
        return limit.toSeconds();
    }
}
