package dev.skiplock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server config file refuses, naming the key, every shape it cannot honour, and says why a file
 * is not YAML in one line. Before, a scalar or a list where a mapping belongs, and a misspelt key
 * inside an entry, were ignored: {@code retention: 1d} kept the default of seven days.
 */
class ServiceConfigFileTest {
    @TempDir
    Path dir;

    private ServiceConfigFile read(String yaml) throws Exception {
        Path file = dir.resolve("skiplock.yaml");
        Files.writeString(file, yaml);
        return ServiceConfigFile.read(file);
    }

    @Test
    void aShapeItCannotHonourIsRefusedNamingItsKey() {
        Map<String, String> refusals = Map.of(
                "retention: 1d\n", "retention: must be a mapping",
                "retention: {finshed: 1d}\n", "retention.finshed: unknown key",
                "queues: [default]\n", "queues: must be a mapping",
                "queues: {default: {concurrency: 2, priority: 1}}\n", "queues.default.priority: unknown key",
                "tools: [greet]\n", "tools: must be a mapping",
                "tools: {greet: {argv: [echo], shell: true}}\n", "tools.greet.shell: unknown key",
                "tools: {greet: {argv: [echo, [a, b]]}}\n", "tools.greet.argv[1]: must be a string",
                "retention 1d\n", "--config: must be a mapping");
        refusals.forEach((yaml, message) -> assertThatThrownBy(() -> read(yaml)).as(yaml)
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(message));
    }

    @Test
    void aFileThatIsNotYamlIsRefusedInOneLine() {
        assertThatThrownBy(() -> read("queues: {default: {concurrency: 2}\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--config: cannot read ")
                .satisfies(refused -> assertThat(refused.getMessage().lines()).hasSize(1));
    }

    @Test
    void theFormsOfApiMdAreRead() throws Exception {
        ServiceConfigFile file = read("""
                queues: {default: {concurrency: 8}, builds: {concurrency: 2}}
                tools:  {greet: {argv: ["echo", "hello", "{name}"]}}
                retention: {finished: 7d}
                """);
        assertThat(file.queues()).containsExactly(Map.entry("default", 8), Map.entry("builds", 2));
        assertThat(file.tools()).containsEntry("greet", java.util.List.of("echo", "hello", "{name}"));
        assertThat(file.retention()).isEqualTo(java.time.Duration.ofDays(7));
    }
}
