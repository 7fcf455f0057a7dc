package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.cli.Main;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The CLI against a running server: outputs and exit codes (API.md: 0, 1, 2, 3). */
abstract class CliContract extends ContractBase {
    private SkiplockServer server;
    private String url;
    private Skiplock skiplock;

    @BeforeEach
    void startServer() {
        skiplock = started(builder(config -> config.queue("default", 2))
                .handler("command", JsonNode.class, SkiplockServer.commandRunner()));
        server = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0, 1024 * 1024, true, Map.of()));
        url = "http://127.0.0.1:" + server.port();
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    private record Run(int exit, String out, String err) {
    }

    /**
     * Runs the CLI in this JVM, capturing stdout and stderr (the commands print with System.out and
     * System.err). This JVM has no console, so output is plain, as in a pipe.
     */
    private Run cli(String... args) {
        PrintStream originalOut = System.out;
        PrintStream originalErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        synchronized (CliContract.class) {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            try {
                return new Run(Main.run(args), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
            } finally {
                System.setOut(originalOut);
                System.setErr(originalErr);
            }
        }
    }

    @Test
    void submitWaitExitsWithTheJobsOutcome() {
        Run ok = cli("submit", "--server", url, "--wait", "--", "sh", "-c", "echo from-the-job");
        assertThat(ok.exit()).isZero();
        assertThat(ok.out()).contains("from-the-job");

        assertThat(cli("submit", "--server", url, "--wait", "--", "false").exit()).isEqualTo(1);
    }

    @Test
    void jobCommandsWorkAndBadInputExitsTwo() {
        String id = cli("submit", "--server", url, "--", "sleep", "30").out().strip();
        assertThat(id).matches("[0-9a-f-]{36}");

        assertThat(cli("status", "--server", url, id).out()).contains("\"id\" : \"" + id + "\"");
        assertThat(cli("ls", "--server", url).out()).contains(id);
        assertThat(cli("cancel", "--server", url, id).exit()).isZero();
        assertThat(cli("logs", "--server", url, "-f", id).out()).contains("cancelled");
        assertThat(cli("retry", "--server", url, id).exit()).isZero();
        assertThat(cli("rm", "--server", url, "--force", id).exit()).isZero();
        assertThat(cli("queue", "pause", "default", "--server", url).out()).contains("default paused");
        assertThat(cli("queue", "resume", "default", "--server", url).exit()).isZero();

        assertThat(cli("status", "--server", url, "not-an-id").exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(cli("submit", "--server", url, "--priority", "x", "--", "true").exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(cli("queue", "sideways", "default", "--server", url).exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(cli("status", "--server", "http://127.0.0.1:1", id).exit()).isEqualTo(Main.EXIT_UNREACHABLE);
    }

    /** Before, rm --force said "removed" of a running job the server had only asked to stop (202). */
    @Test
    void rmForceSaysWhatTheServerDid() {
        String running = cli("submit", "--server", url, "--", "sleep", "30").out().strip();
        awaitStatus(skiplock, UUID.fromString(running), dev.skiplock.JobStatus.RUNNING);
        String queued = cli("submit", "--server", url, "--queue", "idle", "--", "true").out().strip();

        assertThat(cli("rm", "--server", url, "--force", running).out().strip())
                .isEqualTo(running + " cancel requested; removed once it has stopped");
        assertThat(cli("rm", "--server", url, "--force", queued).out().strip()).isEqualTo(queued + " cancelled and removed");
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> skiplock.get(UUID.fromString(running)).isEmpty());
        String done = cli("submit", "--server", url, "--wait", "--", "true").out().lines().findFirst().orElseThrow();
        assertThat(cli("rm", "--server", url, done).out().strip()).isEqualTo(done + " removed");
    }

    @Test
    void pipedSubmitWaitPrintsTheIdThenTheJobsOutputAndNothingElse() {
        Run run = cli("submit", "--server", url, "--wait", "--", "sh", "-c", "echo first; echo second");

        assertThat(run.exit()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.getFirst()).matches("[0-9a-f-]{36}");
        assertThat(lines.subList(1, 3)).containsExactly("first", "second");
        assertThat(run.err()).as("no status line in a pipe").doesNotContain("\033");

        Run logs = cli("logs", "--server", url, "-f", lines.getFirst());
        assertThat(logs.out()).contains("first").contains("succeeded").doesNotContain("\033");
        assertThat(logs.err()).as("no status line in a pipe").doesNotContain("\033");
    }

    @Test
    void pipedBenchPrintsOnlyTheJsonLineOnStdoutAndPlainProgressOnStderr() {
        Run bench = cli("--db", database.url(), "bench", "enqueue-batch", "--n", "50", "--batch", "20");

        assertThat(bench.exit()).as(bench.err()).isZero();
        List<String> lines = bench.out().lines().toList();
        assertThat(lines).hasSize(1);
        JsonNode result = dev.skiplock.cli.CliJson.read(lines.getFirst());
        assertThat(result.path("ok").asBoolean()).isTrue();
        assertThat(result.path("settings").path("db").asText()).isEqualTo(skiplock.driverName());
        assertThat(bench.err()).contains("bench: enqueue-batch: enqueueing 50 jobs\n").doesNotContain("\033");
    }

    /**
     * A drain spread over two worker processes, each with a pool of 3 connections, finishes every job
     * (processes of the real CLI).
     */
    @Test
    void benchDrainSpreadsOverWorkerProcesses() {
        Run bench = cli("--db", database.url(), "bench", "drain", "--n", "200", "--processes", "2", "--pool-size", "3");

        assertThat(bench.exit()).as(bench.err()).isZero();
        JsonNode result = dev.skiplock.cli.CliJson.read(bench.out().strip());
        assertThat(result.path("ok").asBoolean()).isTrue();
        assertThat(result.path("processes").asInt()).isEqualTo(2);
        assertThat(result.path("settings").path("pool_size").asInt()).isEqualTo(3);
        assertThat(result.path("jobs_per_s").asLong()).isPositive();
        Run refused = cli("--db", database.url(), "bench", "latency", "--processes", "2");
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).contains("--processes: only with MODE drain");
    }

    /**
     * {@code serve} refuses options it cannot serve with by name (exit 2) before it touches the
     * database: a fresh SQLite file named by {@code --db} is not even created.
     */
    @Test
    void serveRefusesBadOptionsBeforeTouchingTheDatabase(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path fresh = dir.resolve("never.db");
        Path config = dir.resolve("skiplock.yaml");
        Files.writeString(config, """
                cron:
                  - {name: report, schedule: "0 3 * * *", job: {kind: x}}
                  - {name: report, schedule: "0 3 * * 1", job: {kind: y}}
                """);
        Path tokens = dir.resolve("tokens");
        String hash = "ab".repeat(32);
        Files.writeString(tokens, "acme " + hash + "\n* " + hash + "\n"); // one token, two tenants: which one?
        Map<String, List<String>> refusals = Map.of(
                "port:", List.of("--port", "70000"),
                "host:", List.of("--host", "0.0.0.0", "--port", "0"),
                "cron[1].name:", List.of("--port", "0", "--config", config.toString()),
                "--tokens: line 2", List.of("--port", "0", "--tokens", tokens.toString()));
        refusals.forEach((field, options) -> {
            List<String> args = new ArrayList<>(List.of("--db", "jdbc:sqlite:" + fresh, "serve"));
            args.addAll(options);
            Run refused = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(WAIT,
                    () -> cli(args.toArray(String[]::new)));

            assertThat(refused.exit()).as(String.join(" ", options)).isEqualTo(2);
            assertThat(refused.err()).as(String.join(" ", options)).contains(field);
            assertThat(fresh).as("the database of " + String.join(" ", options)).doesNotExist();
        });
    }

    /**
     * A port another process listens on is bad input (exit 2) naming --port, and the instance
     * started for it is closed. Before, it exited 1 (which says a job did not succeed) with the
     * web server's exception class.
     */
    @Test
    void servingOnAPortInUseExitsTwoNamingIt(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Run refused = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(WAIT, () -> cli("--db",
                    "jdbc:sqlite:" + dir.resolve("served.db"), "serve", "--port", Integer.toString(taken.getLocalPort())));
            assertThat(refused.exit()).isEqualTo(2);
            assertThat(refused.err()).contains("skiplock: --port: cannot listen on 127.0.0.1:" + taken.getLocalPort())
                    .doesNotContain("BindException");
        }
    }

    /**
     * A pool size out of bounds is refused by name before anything connects (exit 2), as is one
     * given to a bench mode without workers.
     */
    @Test
    void poolSizeOutOfBoundsIsRefusedByName() {
        for (String[] command : List.of(new String[] {"worker", "--pool-size", "1"},
                new String[] {"serve", "--port", "0", "--pool-size", "1001"},
                new String[] {"bench", "drain", "--pool-size", "1"})) {
            assertRefusedByName(command, "--pool-size: must be between 2 and 1000, got ");
        }
        Run refused = cli("--db", database.url(), "bench", "enqueue-batch", "--pool-size", "4");
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).contains("--pool-size: only with MODE drain, latency or sustained");
    }

    /** A command output limit below one byte is refused by name before anything connects (exit 2). */
    @Test
    void maxOutputBytesBelowOneIsRefusedByName() {
        for (String[] command : List.of(new String[] {"worker", "--max-output-bytes", "0"},
                new String[] {"serve", "--port", "0", "--max-output-bytes", "-5"})) {
            assertRefusedByName(command, "--max-output-bytes: must be at least 1, got ");
        }
    }

    /**
     * Runs {@code command} against the test database and expects exit 2 with {@code message}. (A
     * worker or server that accepted the option would run until stopped: the timeout keeps such a
     * regression from hanging the suite.)
     */
    private void assertRefusedByName(String[] command, String message) {
        List<String> args = new ArrayList<>(List.of("--db", database.url()));
        args.addAll(List.of(command));
        Run refused = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(WAIT,
                () -> cli(args.toArray(String[]::new)));

        assertThat(refused.exit()).as(String.join(" ", command)).isEqualTo(2);
        assertThat(refused.err()).contains(message);
    }

    /**
     * {@code bench drain --analyze} gives the jobs table statistics before the timed run, as a live
     * queue has them (PostgreSQL planned every claim again on an analyzed table before 0016); other
     * modes refuse it by name.
     */
    @Test
    void benchDrainAnalyzesTheJobsTableWhenAskedAndOtherModesRefuseIt() {
        Run bench = cli("--db", database.url(), "bench", "drain", "--n", "200", "--analyze");

        assertThat(bench.exit()).as(bench.err()).isZero();
        JsonNode result = dev.skiplock.cli.CliJson.read(bench.out().strip());
        assertThat(result.path("ok").asBoolean()).isTrue();
        assertThat(result.path("settings").path("analyze").asBoolean()).isTrue();
        assertThat(bench.err()).contains("drain: ANALYZE of the jobs table (untimed)");

        Run refused = cli("--db", database.url(), "bench", "latency", "--n", "10", "--analyze");
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).contains("--analyze: only with MODE drain, without --processes");
    }

    /** The sustained mode reports windows (here one of 2 s); a held snapshot is PostgreSQL's only. */
    @Test
    void benchSustainedReportsItsWindowsAndHoldsASnapshotOnPostgresOnly() {
        boolean postgres = skiplock.driverName().equals("postgres");
        Run bench = postgres
                ? cli("--db", database.url(), "bench", "sustained", "--rate", "40", "--seconds", "2", "--hold-snapshot")
                : cli("--db", database.url(), "bench", "sustained", "--rate", "40", "--seconds", "2");

        assertThat(bench.exit()).as(bench.err()).isZero();
        JsonNode result = dev.skiplock.cli.CliJson.read(bench.out().strip());
        assertThat(result.path("ok").asBoolean()).isTrue();
        assertThat(result.path("hold_snapshot").asBoolean()).isEqualTo(postgres);
        assertThat(result.path("windows")).hasSize(1);
        JsonNode window = result.path("windows").get(0);
        assertThat(window.path("enqueued").asLong()).isPositive();
        assertThat(window.path("finished").asLong()).isPositive();
        assertThat(window.path("dead_tuples").asLong() >= 0).isEqualTo(postgres);
        if (!postgres) {
            Run refused = cli("--db", database.url(), "bench", "sustained", "--seconds", "1", "--hold-snapshot");
            assertThat(refused.exit()).isEqualTo(2);
            assertThat(refused.err()).contains("--hold-snapshot: PostgreSQL only");
        }
    }

    @Test
    void lsPassesTenantToTheServerWhereAnAdminTokenSeesEveryTenant() throws Exception {
        String acme = skiplock.tenant("acme").enqueue(dev.skiplock.JobRequest.of("report", null).withQueue("idle"))
                .id().toString();
        String globex = skiplock.tenant("globex").enqueue(dev.skiplock.JobRequest.of("report", null).withQueue("idle"))
                .id().toString();
        Map<String, String> tokens = Map.of(sha256("root-token"), "*", sha256("acme-token"), "acme");
        try (SkiplockServer secured = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0, 1024 * 1024,
                true, Map.of(), tokens, null, List.of()))) {
            String at = "http://127.0.0.1:" + secured.port();
            assertThat(cli("ls", "--server", at, "--token", "root-token").out()).contains(acme, globex);
            Run one = cli("ls", "--server", at, "--token", "root-token", "--tenant", "acme");
            assertThat(one.exit()).as(one.err()).isZero();
            assertThat(one.out()).contains(acme).doesNotContain(globex);
            assertThat(cli("ls", "--server", at, "--token", "acme-token").out()).contains(acme).doesNotContain(globex);
            Run refused = cli("ls", "--server", at, "--token", "acme-token", "--tenant", "globex");
            assertThat(refused.exit()).isEqualTo(Main.EXIT_USAGE);
            assertThat(refused.err()).contains("admin token").doesNotContain(globex);
        }
    }

    private static String sha256(String token) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(token.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void globalOptionsAreAcceptedBeforeOrAfterTheSubcommand() {
        assertThat(cli("--db", database.url(), "migrate").out()).contains("is up to date");
        assertThat(cli("migrate", "--db", database.url()).out()).contains("is up to date");

        String id = cli("--server", url, "submit", "--", "sleep", "30").out().strip();
        assertThat(cli("--server", url, "status", id).out()).contains("\"id\" : \"" + id + "\"");
        assertThat(cli("status", id, "--server", url).out()).contains("\"id\" : \"" + id + "\"");
        assertThat(cli("--server", url, "--token", "unused", "ls").out()).contains(id);
        assertThat(cli("ls", "--server", url).out()).contains(id);
        Run cancelled = cli("--server", url, "cancel", id);
        assertThat(cancelled.exit()).as(cancelled.err()).isZero();
        assertThat(cancelled.out()).startsWith(id);
        assertThat(cli("cancel", id, "--server", url).exit()).as("already cancelled").isEqualTo(Main.EXIT_USAGE);
        assertThat(cli("--server", "http://127.0.0.1:1", "status", id).exit()).isEqualTo(Main.EXIT_UNREACHABLE);
    }

    /**
     * The demo works a queue of its own: on the database a server uses, it neither claims the
     * server's queued jobs (and fails them: it has no handler for their kind) nor leaves its own to
     * the server's worker. Queue default is paused here, so a demo on it never ends: before, the
     * demo gave up after its 60 s wait and exited 1.
     */
    @Test
    void demoWorksAQueueOfItsOwnAndPrintsNoPassword() {
        Skiplock client = client();
        client.pauseQueue("default");
        Job bystander = client.enqueue(JobRequest.of("someone-elses", Map.of()));

        Run demo = cli("--db", database.url(), "demo", "--jobs", "2");

        assertThat(demo.exit()).as(demo.out() + demo.err()).isZero();
        assertThat(demo.out()).contains("queue demo: 3 succeeded");
        Job untouched = client.get(bystander.id()).orElseThrow();
        assertThat(untouched.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(untouched.attempt()).isZero();
        assertThat(dev.skiplock.cli.DatabaseUrl.withoutPassword(
                "jdbc:postgresql://h/db?user=u&password=s3cret&ssl=true")).isEqualTo(
                "jdbc:postgresql://h/db?user=u&password=***&ssl=true");
        assertThat(dev.skiplock.cli.DatabaseUrl.withoutPassword("jdbc:postgresql://u:s3cret@h/db"))
                .isEqualTo("jdbc:postgresql://u:***@h/db");
    }

    @Test
    void serveTakesTheDatabaseBeforeTheSubcommand() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-XX:+UseSerialGC", "-Xmx96m",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "dev.skiplock.cli.Main", "--db", database.url(), "serve", "--port", "0", "--concurrency", "0"));
        Process serve = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            CompletableFuture<String> serving = CompletableFuture.supplyAsync(() -> firstLine(serve, "skiplock serving on"));
            Matcher address = Pattern.compile("on (http://\\S+) \\((\\w+), API only\\)")
                    .matcher(serving.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertThat(address.find()).isTrue();
            assertThat(address.group(2)).isEqualTo(skiplock.driverName());

            assertThat(cli("--server", address.group(1), "ls").exit()).isZero();
        } finally {
            serve.destroy();
            serve.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /**
     * Every job a serve process finished is on its /metrics, also those it finished while it
     * started. Before, its workers started first and the Prometheus registry joined their meters
     * after: the jobs finished in between counted from 0, and were missing for good.
     */
    @Test
    void everyJobServeFinishesIsOnItsMetrics() throws Exception {
        List<dev.skiplock.JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            jobs.add(dev.skiplock.JobRequest.of("no-such-kind", null).withQueue("metered").withMaxAttempts(1));
        }
        skiplock.enqueueMany(jobs);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-XX:+UseSerialGC", "-Xmx96m",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "dev.skiplock.cli.Main", "--db", database.url(), "serve", "--port", "0", "--queues", "metered",
                "--concurrency", "8"));
        Process serve = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            CompletableFuture<String> serving = CompletableFuture.supplyAsync(() -> firstLine(serve, "skiplock serving on"));
            Matcher address = Pattern.compile("on http://127.0.0.1:(\\d+) ").matcher(serving.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertThat(address.find()).isTrue();
            await().atMost(WAIT).until(() -> skiplock.count().stream().filter(count -> count.queue().equals("metered")
                    && count.status() == dev.skiplock.JobStatus.FAILED).mapToLong(dev.skiplock.QueueCount::jobs).sum() == 300);

            String metrics = new Http(Integer.parseInt(address.group(1))).get("/metrics").text();
            double failed = metrics.lines().filter(line -> line.startsWith("skiplock_jobs_failed_total{")
                    && line.contains("queue=\"metered\"")).mapToDouble(line -> Double.parseDouble(line.substring(
                            line.lastIndexOf(' ') + 1))).sum();
            assertThat(failed).isEqualTo(300);
        } finally {
            serve.destroy();
            serve.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private static String firstLine(Process process, String prefix) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            StringBuilder seen = new StringBuilder();
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.startsWith(prefix)) {
                    return line;
                }
                seen.append(line).append('\n');
            }
            throw new IllegalStateException("the process ended before '" + prefix + "':\n" + seen);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void workersListsThisTestsWorker() {
        String workerId = skiplock.config().workerId();

        Run table = cli("workers", "--server", url);
        Run json = cli("--server", url, "workers", "--json");

        assertThat(table.exit()).isZero();
        List<String> lines = table.out().lines().toList();
        assertThat(lines.getFirst().split(" +")).containsExactly("ID", "HOST", "PID", "QUEUES", "STATUS", "HEARTBEAT");
        assertThat(lines).anySatisfy(line -> assertThat(line.split(" +")).startsWith(workerId,
                skiplock.config().hostId(), Long.toString(ProcessHandle.current().pid()), "default", "active"));
        assertThat(json.out()).contains("\"id\" : \"" + workerId + "\"");
    }

    /** {@code top | head} ends once head has: before, it redrew into the broken pipe until stopped. */
    @Test
    void topEndsWhenItsReaderHasGone() {
        PrintStream originalOut = System.out;
        synchronized (CliContract.class) {
            // as a pipe whose reader exited (top | head): every write fails, which a PrintStream swallows
            System.setOut(new PrintStream(new java.io.OutputStream() {
                @Override
                public void write(int b) throws java.io.IOException {
                    throw new java.io.IOException("Broken pipe");
                }
            }, true, StandardCharsets.UTF_8));
            try {
                int exit = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(WAIT,
                        () -> Main.run("--server", url, "--plain", "top", "--interval", "100ms"));
                assertThat(exit).isZero();
            } finally {
                System.setOut(originalOut);
            }
        }
    }

    @Test
    void topOnceShowsTheQueueAndItsCounts() {
        assertThat(cli("submit", "--server", url, "--wait", "--", "true").exit()).isZero();
        assertThat(cli("submit", "--server", url, "--wait", "--", "false").exit()).isEqualTo(1);

        Run top = cli("--server", url, "top", "--once");

        assertThat(top.exit()).isZero();
        assertThat(top.out()).doesNotContain("\033");
        List<String> lines = top.out().lines().toList();
        List<String> header = Arrays.asList(lines.stream().filter(line -> line.startsWith("QUEUE ")).findFirst()
                .orElseThrow().split(" +"));
        List<String> row = Arrays.asList(lines.stream().filter(line -> line.startsWith("default "))
                .findFirst().orElseThrow().split(" +"));
        assertThat(row.get(header.indexOf("SUCCEEDED"))).isEqualTo("1");
        assertThat(row.get(header.indexOf("FAILED"))).isEqualTo("1");
        assertThat(row.get(header.indexOf("QUEUED"))).isEqualTo("0");
        assertThat(row.get(header.indexOf("FINISHED/S"))).isEqualTo("-");
        assertThat(lines).anyMatch(line -> line.startsWith(skiplock.config().workerId() + " "));
    }

    @Test
    void aBadOptionExitsTwoAndNamesIt() {
        Run run = cli("ls", "--server", url, "--sideways");

        assertThat(run.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(run.err()).startsWith("skiplock: Unknown option: '--sideways'");
    }

    @Test
    void signalDeliversThroughTheServerOrStraightToTheDatabaseAndPrintsTheJob() {
        String id = cli("submit", "--server", url, "--queue", "idle", "--kind", "report").out().strip();

        Run viaServer = cli("signal", "--server", url, id, "approve", "{\"by\": \"ada\"}");
        Run viaDatabase = cli("--db", database.url(), "signal", id, "ship");

        assertThat(viaServer.exit()).as(viaServer.err()).isZero();
        assertThat(viaServer.out()).contains("\"id\" : \"" + id + "\"", "\"status\" : \"queued\"");
        assertThat(viaDatabase.exit()).as(viaDatabase.err()).isZero();
        assertThat(viaDatabase.out()).as("printed as status prints it").isEqualTo(cli("status", "--server", url, id).out());
        assertThat(skiplock.events(UUID.fromString(id), 0, 100)).filteredOn(event -> event.type().equals("step"))
                .extracting(event -> event.step() + ":" + event.status()).containsExactly("approve:signalled", "ship:signalled");
    }

    @Test
    void signalExitsTwoForBadInputAMissingJobOrOneThatCannotTakeIt() {
        String id = cli("submit", "--server", url, "--queue", "idle", "--kind", "report").out().strip();
        String missing = UUID.randomUUID().toString();
        assertThat(cli("signal", "--server", url, id, "approve").exit()).isZero();

        for (List<String> where : List.of(List.of("--server", url), List.of("--db", database.url()))) {
            assertThat(signal(where, id, "approve")).as(where + ": delivered before").startsWith("skiplock: signal approve");
            assertThat(signal(where, missing, "approve")).as(where + ": no such job").contains("not found");
            assertThat(signal(where, id, "bad name")).as(where.toString()).startsWith("skiplock: name:");
            assertThat(signal(where, id, "other", "{nope")).as(where.toString()).startsWith("skiplock: payload:");
        }
        assertThat(signal(List.of("--db", database.url()), "not-an-id", "approve")).startsWith("skiplock: ID:");
        assertThat(cli("cancel", "--server", url, id).exit()).isZero();
        for (List<String> where : List.of(List.of("--server", url), List.of("--db", database.url()))) {
            assertThat(signal(where, id, "other")).as(where + ": finished").contains("is already cancelled");
        }
        assertThat(cli("signal", "--server", "http://127.0.0.1:1", id, "other").exit()).isEqualTo(Main.EXIT_UNREACHABLE);
    }

    /**
     * Arguments are taken as typed: picocli's expansion of "@file" is off (a job's "@@x" lost an "@",
     * and "@FILE" spliced the file's words into the job's argv), and a job id is checked before it
     * goes into a request's path (an empty one listed the jobs, "../workers" reached another route).
     */
    @Test
    void argumentsAreTakenAsTypedAndIdsAreCheckedBeforeAnyRequest(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path words = Files.writeString(dir.resolve("words"), "spliced words");
        Run submitted = cli("submit", "--server", url, "--queue", "idle", "--", "echo", "@@x", "@" + words);
        assertThat(submitted.exit()).as(submitted.err()).isZero();
        JsonNode argv = skiplock.get(UUID.fromString(submitted.out().strip())).orElseThrow().args().path("argv");
        assertThat(argv.toString()).isEqualTo(jsonArray("echo", "@@x", "@" + words));

        for (String id : List.of("", "../workers", "a b", "1-1-1-1-1")) {
            for (List<String> command : List.of(List.of("status", id), List.of("cancel", id), List.of("retry", id),
                    List.of("rm", id), List.of("logs", id), List.of("logs", "-f", id), List.of("signal", id, "go"))) {
                List<String> args = new ArrayList<>(command);
                args.addAll(List.of("--server", url));
                Run refused = cli(args.toArray(String[]::new));
                assertThat(refused.exit()).as(args.toString()).isEqualTo(Main.EXIT_USAGE);
                assertThat(refused.err()).as(args.toString()).startsWith("skiplock: ID: not a job id");
            }
        }
    }

    /**
     * An answer that is not the API's JSON (a proxy's error page, another service on the port) exits
     * by its status as API.md says: 3 for a 5xx or a success that is not JSON, 2 for a 4xx. Before,
     * the JSON parser's failure ended it with exit 1, "the job did not succeed".
     */
    @Test
    void anAnswerThatIsNotTheApisJsonExitsByItsStatus() throws Exception {
        java.util.concurrent.atomic.AtomicInteger status = new java.util.concurrent.atomic.AtomicInteger();
        com.sun.net.httpserver.HttpServer stub = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        stub.createContext("/", exchange -> {
            byte[] page = "<html><body>Bad Gateway</body></html>".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/html");
            exchange.sendResponseHeaders(status.get(), page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
        });
        stub.start();
        try {
            String stubUrl = "http://127.0.0.1:" + stub.getAddress().getPort();
            String id = UUID.randomUUID().toString();
            Map<Integer, Integer> exitOfStatus = Map.of(502, Main.EXIT_UNREACHABLE, 404, Main.EXIT_USAGE,
                    200, Main.EXIT_UNREACHABLE);
            exitOfStatus.forEach((answered, exit) -> {
                status.set(answered);
                for (List<String> command : List.of(List.of("status", id), List.of("logs", id), List.of("logs", "-f", id),
                        List.of("submit", "--", "true"))) {
                    List<String> args = new ArrayList<>(List.of("--server", stubUrl));
                    args.addAll(command);
                    Run run = cli(args.toArray(String[]::new));
                    assertThat(run.exit()).as(answered + " " + args + ": " + run.err()).isEqualTo(exit);
                    assertThat(run.err()).as(answered + " " + args).startsWith("skiplock: " + stubUrl + " answered HTTP "
                            + answered).doesNotContain("Exception");
                }
            });
        } finally {
            stub.stop(0);
        }
    }

    /**
     * {@code submit --kind command --args JSON} enqueues a command job from its args (API.md: any
     * kind), as {@code submit -- CMD} does; both at once, or a {@code --timeout} the API's whole
     * seconds cannot hold, are refused by name. Before, the first was refused for want of CMD, and
     * {@code --timeout 500ms} became a limit of 0 s that the server refused naming timeoutSeconds.
     */
    @Test
    void submitTakesACommandJobsArgsAsJsonAndRefusesWhatItCannotSend() {
        Run fromArgs = cli("submit", "--server", url, "--queue", "idle", "--kind", "command", "--args",
                "{\"argv\": [\"echo\", \"hi\"], \"cwd\": \"/tmp\"}");
        assertThat(fromArgs.exit()).as(fromArgs.err()).isZero();
        JsonNode args = skiplock.get(UUID.fromString(fromArgs.out().strip())).orElseThrow().args();
        assertThat(args.path("argv").toString()).isEqualTo(jsonArray("echo", "hi"));
        assertThat(args.path("cwd").asText()).isEqualTo("/tmp");

        Map<String, List<String>> refusals = Map.of(
                "skiplock: --args: give the command either after -- or as --args",
                List.of("--args", "{\"argv\": [\"x\"]}", "--", "ls"),
                "skiplock: --timeout: must be whole seconds", List.of("--timeout", "500ms", "--", "true"),
                "skiplock: --timeout: must be whole seconds, at least 1s, e.g. 30s or 5m; got '1500ms'",
                List.of("--timeout", "1500ms", "--", "true"));
        refusals.forEach((message, options) -> {
            List<String> command = new ArrayList<>(List.of("submit", "--server", url, "--queue", "idle"));
            command.addAll(options);
            Run refused = cli(command.toArray(String[]::new));
            assertThat(refused.exit()).as(options.toString()).isEqualTo(Main.EXIT_USAGE);
            assertThat(refused.err()).as(options.toString()).startsWith(message);
        });
        assertThat(skiplock.list(new dev.skiplock.JobQuery(null, "idle", null, 100, null)).jobs())
                .as("nothing refused was enqueued").hasSize(1);
    }

    /**
     * {@code worker} names the option of a value the library refuses, as serve does: before, the
     * message named the library's fields (concurrency, heartbeatInterval, leaseTtl).
     */
    @Test
    void workerNamesTheOptionOfAValueItRefuses() {
        Map<String, List<String>> refusals = Map.of(
                "skiplock: --concurrency: must be between 1 and ", List.of("--concurrency", "0"),
                "skiplock: --heartbeat: must be shorter than --lease (", List.of("--heartbeat", "30s", "--lease", "20s"),
                "skiplock: --queues: ", List.of("--queues", "bad name"));
        refusals.forEach((message, options) -> {
            List<String> command = new ArrayList<>(List.of("--db", database.url(), "worker"));
            command.addAll(options);
            Run refused = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(WAIT,
                    () -> cli(command.toArray(String[]::new)));
            assertThat(refused.exit()).as(options.toString()).isEqualTo(Main.EXIT_USAGE);
            assertThat(refused.err()).as(options.toString()).startsWith(message);
        });
    }

    /**
     * {@code logs ID} prints every recorded event of a job whose log runs to several of the server's
     * pages, in order, as {@code GET …/events} lists them: both are written a page at a time now,
     * the whole log never held as one document.
     */
    @Test
    void logsPrintsALogOfSeveralPagesInOrder() throws Exception {
        Run done = cli("submit", "--server", url, "--wait", "--", "sh", "-c", "seq 1 2500");
        assertThat(done.exit()).as(done.err()).isZero();
        String id = done.out().lines().findFirst().orElseThrow();
        List<String> expected = java.util.stream.IntStream.rangeClosed(1, 2500).mapToObj(String::valueOf).toList();

        Run logs = cli("logs", "--server", url, id);

        assertThat(logs.exit()).as(logs.err()).isZero();
        assertThat(logs.out().lines().filter(line -> !line.startsWith("[")).toList()).isEqualTo(expected);
        JsonNode listed = new Http(server.port()).get("/api/v1/jobs/" + id + "/events").json();
        List<String> messages = new ArrayList<>();
        listed.path("events").forEach(event -> {
            if (event.path("type").asText().equals("log")) {
                messages.add(event.path("message").asText());
            }
        });
        assertThat(messages).isEqualTo(expected);
    }

    /**
     * {@code logs ID} exits 3 when the database fails after the server has begun to send the log
     * (forced: the server's second read of the job's events fails): the status was sent with the
     * first page, so the failure comes as an error line at the end. Before, the CLI printed the
     * first page and that line as an event, and exited 0.
     */
    @Test
    void logsExitsThreeWhenTheDatabaseFailsAfterTheFirstPage() throws Exception {
        Run done = cli("submit", "--server", url, "--wait", "--", "sh", "-c", "seq 1 1500");
        assertThat(done.exit()).as(done.err()).isZero();
        String id = done.out().lines().findFirst().orElseThrow();
        String listEvents = BeforeStatement.sql(skiplock, "events", "list_events");
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        javax.sql.DataSource failingSecond = BeforeStatement.eachTime(client().dataSource(), listEvents, () -> {
            if (reads.incrementAndGet() == 2) {
                throw new java.sql.SQLException("the test's failure of the second page", "08006");
            }
        });
        Skiplock reader = track(Skiplock.builder().dataSource(failingSecond).config(fastConfig().build()).build());
        try (SkiplockServer failing = SkiplockServer.start(reader,
                new ServerConfig("127.0.0.1", 0, 1024 * 1024, true, Map.of()))) {
            Run logs = cli("logs", "--server", "http://127.0.0.1:" + failing.port(), id);

            assertThat(logs.exit()).as(logs.err()).isEqualTo(Main.EXIT_UNREACHABLE);
            assertThat(logs.err()).contains("skiplock: database unavailable");
            assertThat(reads).hasValue(2);
        }
    }

    /** The JSON text of an array of {@code items}, as the CLI sends an argv. */
    private static String jsonArray(String... items) {
        return dev.skiplock.cli.CliJson.MAPPER.valueToTree(List.of(items)).toString();
    }

    /** Runs {@code skiplock signal ARGS… WHERE…} (the global options after it) expecting exit 2; returns its stderr. */
    private String signal(List<String> where, String... args) {
        List<String> command = new ArrayList<>(List.of("signal"));
        command.addAll(List.of(args));
        command.addAll(where);
        Run run = cli(command.toArray(String[]::new));
        assertThat(run.exit()).as(command + ": " + run.err()).isEqualTo(Main.EXIT_USAGE);
        return run.err();
    }
}
