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

    @Test
    void helpShowsConcurrencyAndHidesTheDeprecatedAlias() {
        String help = new CommandLine(new ServeCommand()).getUsageMessage();

        assertThat(help).contains("--concurrency").doesNotContain("--workers");
    }
}
