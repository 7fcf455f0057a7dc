package dev.skiplock.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.cli.Durations;
import dev.skiplock.cli.Main;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import java.util.stream.StreamSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code skiplock workers [--json]}: the worker registry ({@code GET /api/v1/workers}, needs an admin token once tokens are set). */
@Command(name = "workers", description = "List workers: id, host, pid, queues, status, age of the last heartbeat.")
public final class WorkersCommand implements Callable<Integer> {
    @ParentCommand
    Main cli;

    @Option(names = "--json", description = "print the API's JSON")
    boolean json;

    @Override
    public Integer call() {
        JsonNode answer = cli.options().client().get("/api/v1/workers");
        if (json) {
            JobCommands.printJson(answer);
        } else {
            table(answer.path("workers"), Instant.now(), worker -> true).forEach(System.out::println);
        }
        return 0;
    }

    /** The workers {@code shown} selects, one line each under a header; the heartbeat as an age at {@code now}. */
    static List<String> table(JsonNode workers, Instant now, Predicate<JsonNode> shown) {
        Table table = new Table("ID", "HOST", "PID", "QUEUES", "STATUS", "HEARTBEAT");
        StreamSupport.stream(workers.spliterator(), false).filter(shown).forEach(worker -> table.row(
                worker.path("id").asText(), worker.path("host").asText(), worker.path("pid").asText(),
                String.join(",", StreamSupport.stream(worker.path("queues").spliterator(), false)
                        .map(JsonNode::asText).toList()),
                worker.path("status").asText(), age(worker.path("lastHeartbeatAt").asText(), now)));
        return table.lines();
    }

    private static String age(String timestamp, Instant now) {
        try {
            return Durations.format(Duration.between(Instant.parse(timestamp), now)) + " ago";
        } catch (DateTimeParseException e) {
            return "-";
        }
    }
}
