package dev.skiplock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a good command line does without a server: help everywhere, completion, one-line usage errors (exit 2). */
class CommandLineTest {
    private record Run(int exit, String out, String err) {
    }

    /** Runs {@link Main#run} in this JVM with stdout and stderr captured (picocli writes to System.out/err). */
    private static Run cli(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream capturedOut = new ByteArrayOutputStream();
        ByteArrayOutputStream capturedErr = new ByteArrayOutputStream();
        synchronized (CommandLineTest.class) {
            System.setOut(new PrintStream(capturedOut, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(capturedErr, true, StandardCharsets.UTF_8));
            try {
                return new Run(Main.run(args), capturedOut.toString(StandardCharsets.UTF_8),
                        capturedErr.toString(StandardCharsets.UTF_8));
            } finally {
                System.setOut(out);
                System.setErr(err);
            }
        }
    }

    private static Set<String> subcommands() {
        return Main.commandLine().getSubcommands().keySet();
    }

    @Test
    void everySubcommandAnswersHelpWithItsUsageAndExitsZero() {
        assertThat(subcommands()).contains("serve", "worker", "submit", "status", "ls", "logs", "cancel", "rm",
                "retry", "signal", "queue", "workers", "top", "migrate", "bench", "demo", "help", "completion");
        for (String name : subcommands()) {
            Run help = cli(name, "--help");

            assertThat(help.exit()).as(name + " --help").isZero();
            assertThat(help.out()).as(name + " --help").contains("Usage: skiplock " + name);
        }
    }

    @Test
    void versionIsTheLibrarysAsTheBuildWroteIt() {
        Run version = cli("--version");

        assertThat(version.exit()).isZero();
        assertThat(version.out().strip()).isEqualTo("skiplock " + dev.skiplock.Skiplock.version())
                .doesNotContain("unknown");
    }

    @Test
    void helpCommandShowsASubcommandsUsage() {
        Run help = cli("help", "submit");

        assertThat(help.exit()).isZero();
        assertThat(help.out()).contains("Usage: skiplock submit").contains("--wait").contains("--server");
    }

    @Test
    void everySubcommandTakesTheGlobalOptionsInItsUsage() {
        for (String name : subcommands()) {
            if (!name.equals("help") && !name.equals("completion")) {
                assertThat(cli(name, "--help").out()).as(name).contains("--db", "--server", "--token", "--plain");
            }
        }
    }

    @Test
    void completionPrintsAScriptThatCompletesTheSubcommandsAndTheirOptions() {
        Run completion = cli("completion");

        assertThat(completion.exit()).isZero();
        assertThat(completion.out()).contains("complete -F").contains("skiplock");
        for (String name : subcommands()) {
            assertThat(completion.out()).as(name).contains(name);
        }
        assertThat(completion.out()).contains("--wait", "--interval", "--once");
    }

    @Test
    void anUnknownOptionExitsTwoWithOneLineNamingIt() {
        Run before = cli("--bogus", "status", "x");
        Run after = cli("status", "--bogus", "x");

        assertThat(before.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(after.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(before.err().lines().toList()).containsExactly("skiplock: Unknown option: '--bogus'");
        assertThat(after.err().lines().toList()).containsExactly("skiplock: Unknown option: '--bogus'");
    }

    @Test
    void aBadGlobalValueIsBadUsageBeforeOrAfterTheSubcommand() {
        Run before = cli("--db", "mysql://x", "migrate");
        Run after = cli("migrate", "--db", "mysql://x");

        assertThat(before.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(before.err()).startsWith("skiplock: --db: expected");
        assertThat(after.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(after.err()).isEqualTo(before.err());
        assertThat(cli("top", "--once", "--interval", "10ms").err()).startsWith("skiplock: --interval:");
        assertThat(cli("--server", "ftp://x", "ls").err()).startsWith("skiplock: --server:");
    }

    @Test
    void durationsAreFormattedShortForPeople() {
        assertThat(Durations.format(java.time.Duration.ofMillis(-5))).isEqualTo("0s");
        assertThat(Durations.format(java.time.Duration.ofSeconds(42))).isEqualTo("42s");
        assertThat(Durations.format(java.time.Duration.ofSeconds(65))).isEqualTo("1m05s");
        assertThat(Durations.format(java.time.Duration.ofMinutes(127))).isEqualTo("2h07m");
        assertThat(Durations.format(java.time.Duration.ofHours(76))).isEqualTo("3d04h");
    }
}
