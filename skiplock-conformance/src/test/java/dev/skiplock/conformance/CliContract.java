package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Skiplock;
import dev.skiplock.cli.Main;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The CLI against a running server: outputs and exit codes (API.md: 0, 1, 2, 3). */
abstract class CliContract extends ContractBase {
    private SkiplockServer server;
    private String url;

    @BeforeEach
    void startServer() {
        Skiplock skiplock = started(builder(config -> config.queue("default", 2))
                .handler("command", JsonNode.class, SkiplockServer.commandRunner()));
        server = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0, 1024 * 1024, true, Map.of()));
        url = "http://127.0.0.1:" + server.port();
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    private record Run(int exit, String out) {
    }

    /** Runs the CLI in this JVM, capturing stdout (the commands print with System.out). */
    private Run cli(String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        synchronized (CliContract.class) {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try {
                return new Run(Main.run(args), captured.toString(StandardCharsets.UTF_8));
            } finally {
                System.setOut(original);
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
}
