package dev.skiplock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code serve --concurrency N} is {@code worker --concurrency N}; {@code --workers} stays as a deprecated alias. */
class ServeConcurrencyOptionTest {
    private final StringWriter err = new StringWriter();

    private ServeCommand parse(String... args) {
        CommandLine commandLine = new CommandLine(new ServeCommand());
        commandLine.setErr(new PrintWriter(err, true));
        commandLine.parseArgs(args);
        return commandLine.getCommand();
    }

    @Test
    void concurrencyIsTheNameAndDefaultsToEight() {
        assertThat(parse("--concurrency", "3").concurrency()).isEqualTo(3);
        assertThat(parse("--concurrency", "0").concurrency()).isZero();
        assertThat(parse().concurrency()).isEqualTo(ServeCommand.DEFAULT_CONCURRENCY).isEqualTo(8);
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void workersStillWorksAndWarnsOnceThatItIsDeprecated() {
        assertThat(parse("--workers", "3").concurrency()).isEqualTo(3);

        assertThat(err.toString().lines().toList())
                .containsExactly("skiplock: --workers is deprecated; use --concurrency");
    }

    @Test
    void badValuesNameTheSpellingGivenAndBothSpellingsTogetherAreRefused() {
        assertThatThrownBy(() -> parse("--concurrency", "-1").concurrency())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--concurrency:");
        assertThatThrownBy(() -> parse("--workers", "100000").concurrency())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--workers:");
        assertThatThrownBy(() -> parse("--workers", "2", "--concurrency", "2").concurrency())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--workers:");
        assertThat(Main.run("serve", "--workers", "2", "--concurrency", "2")).isEqualTo(Main.EXIT_USAGE);
    }

    /**
     * Flags win over the config file, and the file's value stands where no flag sets one. Before,
     * the file's concurrency beat --concurrency, and was dropped for a queue named by --queues.
     */
    @Test
    void theConfigFilesConcurrencyStandsWhereNoFlagSetsOne(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path config = dir.resolve("skiplock.yaml");
        java.nio.file.Files.writeString(config, "queues: {default: {concurrency: 8}, builds: {concurrency: 2}}\n");
        ServiceConfigFile file = ServiceConfigFile.read(config);

        assertThat(parse("--concurrency", "3").workedQueues(file)).containsExactly(
                java.util.Map.entry("default", 3), java.util.Map.entry("builds", 3));
        assertThat(parse("--queues", "builds").workedQueues(file)).containsExactly(java.util.Map.entry("builds", 2));
        assertThat(parse().workedQueues(file)).containsExactly(
                java.util.Map.entry("default", 8), java.util.Map.entry("builds", 2));
        assertThat(parse("--queues", "mail").workedQueues(file)).containsExactly(
                java.util.Map.entry("mail", ServeCommand.DEFAULT_CONCURRENCY));
        assertThat(parse("--concurrency", "0").workedQueues(file)).isEmpty();
    }

    @Test
    void helpShowsConcurrencyAndHidesTheDeprecatedAlias() {
        String help = new CommandLine(new ServeCommand()).getUsageMessage();

        assertThat(help).contains("--concurrency").doesNotContain("--workers");
    }
}
