package dev.skiplock.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.skiplock.Names;
import dev.skiplock.SkiplockClient;
import dev.skiplock.cli.CliJson;
import dev.skiplock.cli.Main;
import dev.skiplock.server.SkiplockServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The small job commands: status, ls, cancel, retry, signal, rm, and queue pause/resume. */
public final class JobCommands {
    private JobCommands() {
    }

    static void printJson(JsonNode node) {
        try {
            System.out.println(CliJson.pretty(node));
        } catch (Exception e) {
            System.out.println(node);
        }
    }

    /** POSTs {@code /api/v1/jobs/{id}/{action}} and prints the job's id and status. */
    static int act(Main cli, String id, String action) {
        JsonNode job = cli.options().client().post("/api/v1/jobs/" + JobIds.parse(id) + "/" + action, CliJson.object());
        System.out.println(job.path("id").asText() + " " + job.path("status").asText()
                + (job.path("cancelRequested").asBoolean() ? " (cancel requested)" : ""));
        return 0;
    }

    @Command(name = "status", description = "Show one job.")
    public static final class Status implements Callable<Integer> {
        @ParentCommand
        Main cli;

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            printJson(cli.options().client().get("/api/v1/jobs/" + JobIds.parse(id)));
            return 0;
        }
    }

    @Command(name = "ls", description = "List jobs, newest first.")
    public static final class List implements Callable<Integer> {
        @ParentCommand
        Main cli;

        @Option(names = "--status")
        String status;

        @Option(names = "--queue")
        String queue;

        @Option(names = "--tenant", description = "only this tenant's jobs (an admin token sees every tenant;"
                + " any other token only its own)")
        String tenant;

        @Option(names = "--limit", defaultValue = "50")
        int limit;

        @Option(names = "--json", description = "print the API's JSON")
        boolean json;

        @Override
        public Integer call() {
            StringBuilder query = new StringBuilder("?limit=").append(limit);
            if (status != null) {
                query.append("&status=").append(URLEncoder.encode(status, StandardCharsets.UTF_8));
            }
            if (queue != null) {
                query.append("&queue=").append(URLEncoder.encode(queue, StandardCharsets.UTF_8));
            }
            if (tenant != null) {
                query.append("&tenant=").append(URLEncoder.encode(tenant, StandardCharsets.UTF_8));
            }
            JsonNode page = cli.options().client().get("/api/v1/jobs" + query);
            if (json) {
                printJson(page);
                return 0;
            }
            System.out.printf("%-36s  %-10s  %-12s  %-16s  %s%n", "ID", "STATUS", "QUEUE", "KIND", "REQUESTED");
            page.path("jobs").forEach(job -> System.out.printf("%-36s  %-10s  %-12s  %-16s  %s%n",
                    job.path("id").asText(), job.path("status").asText(), job.path("queue").asText(),
                    job.path("kind").asText(), job.path("requestedAt").asText()));
            return 0;
        }
    }

    @Command(name = "cancel", description = "Cancel a job (a running one is stopped).")
    public static final class Cancel implements Callable<Integer> {
        @ParentCommand
        Main cli;

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            return act(cli, id, "cancel");
        }
    }

    @Command(name = "retry", description = "Queue one more attempt of a finished job.")
    public static final class Retry implements Callable<Integer> {
        @ParentCommand
        Main cli;

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            return act(cli, id, "retry");
        }
    }

    @Command(name = "signal", description = {"Deliver signal NAME (with a JSON payload, default null) to a job that "
            + "has not finished; prints the job. The first delivery of a name wins.",
        "With --db and no --server it writes to that database itself (tenant default)."})
    public static final class Signal implements Callable<Integer> {
        @ParentCommand
        Main cli;

        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1", paramLabel = "NAME")
        String name;

        @Parameters(index = "2", paramLabel = "JSON", arity = "0..1", description = "the signal's payload (default: null)")
        String payload;

        @Override
        public Integer call() {
            UUID job = JobIds.parse(id);
            Names.check("name", name);
            JsonNode json = payload == null ? NullNode.getInstance() : CliJson.parse("payload", payload);
            if (!cli.options().databaseChosen()) {
                printJson(cli.options().client().post("/api/v1/jobs/" + job + "/signals/" + name, json));
                return 0;
            }
            try (SkiplockClient client = cli.options().databaseClient()) {
                printJson(SkiplockServer.jobJson(client.signal(job, name, json)));
            }
            return 0;
        }
    }

    @Command(name = "rm", description = "Delete a finished job; --force cancels a live one first.")
    public static final class Remove implements Callable<Integer> {
        @ParentCommand
        Main cli;

        @Option(names = "--force")
        boolean force;

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            JsonNode accepted = cli.options().client().delete("/api/v1/jobs/" + JobIds.parse(id)
                    + (force ? "?force=true" : ""));
            // 204: deleted; 202 (--force on a live job): cancelled, and deleted once it has ended,
            // which a running job does when its worker has stopped it
            boolean ended = accepted == null
                    || dev.skiplock.JobStatus.fromWireName(accepted.path("status").asText()).isTerminal();
            System.out.println(id + (accepted == null ? " removed" : ended ? " cancelled and removed"
                    : " cancel requested; removed once it has stopped"));
            return 0;
        }
    }

    @Command(name = "queue", description = "Pause or resume a queue.")
    public static final class Queue implements Callable<Integer> {
        @ParentCommand
        Main cli;

        @Parameters(index = "0", paramLabel = "ACTION", description = "pause or resume")
        String action;

        @Parameters(index = "1", paramLabel = "QUEUE")
        String queue;

        @Override
        public Integer call() {
            if (!action.equals("pause") && !action.equals("resume")) {
                throw new IllegalArgumentException("ACTION: expected pause or resume, got '" + action + "'");
            }
            JsonNode answer = cli.options().client().post("/api/v1/queues/" + URLEncoder.encode(queue, StandardCharsets.UTF_8)
                    + "/" + action, CliJson.object());
            System.out.println(answer.path("name").asText() + (answer.path("paused").asBoolean() ? " paused" : " resumed"));
            return 0;
        }
    }
}
