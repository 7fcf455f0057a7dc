package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README "Install", followed as a newcomer would: a fresh clone of this repository, {@code mvn
 * install -DskipTests}, then a project that uses the README's snippet ({@code examples/plain-java})
 * and the Spring Boot example ({@code examples/spring-boot-app}) built on their own, against what
 * was installed. Needs {@code git} and {@code mvn} on the PATH, as
 * the README does. It tests the committed tree (a clone sees no uncommitted change).
 */
class InstallTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theReadmeSnippetIsWhatTheExampleUses() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int section = readme.indexOf("## Install");
        int start = readme.indexOf("```xml\n", section) + "```xml\n".length();
        List<String> snippet = readme.substring(start, readme.indexOf("\n```", start)).lines().map(String::strip).toList();
        List<String> pom = Files.readAllLines(ROOT.resolve("examples/plain-java/pom.xml")).stream().map(String::strip).toList();
        // every line of the snippet, in order, in the example's pom (which adds its test dependencies)
        int at = 0;
        for (String line : snippet) {
            while (at < pom.size() && !pom.get(at).equals(line)) {
                at++;
            }
            assertThat(at).as("README Install line in examples/plain-java/pom.xml: %s", line).isLessThan(pom.size());
            at++;
        }
    }

    @Test
    void aFreshCloneInstallsAndTheExampleBuildsAgainstIt(@TempDir Path dir) throws Exception {
        Path clone = dir.resolve("skiplock");
        run(dir, "git", "clone", "--quiet", ROOT.toString(), clone.toString());
        run(clone, "mvn", "-B", "-q", "install", "-DskipTests");
        run(clone, "mvn", "-B", "-q", "verify", "-f", "examples/plain-java/pom.xml");
        run(clone, "mvn", "-B", "-q", "verify", "-f", "examples/spring-boot-app/pom.xml"); // README "Spring Boot"

        assertThat(clone.resolve("examples/plain-java/target/surefire-reports")).isDirectory();
        assertThat(clone.resolve("examples/spring-boot-app/target/surefire-reports")).isDirectory();
    }

    private static void run(Path directory, String... command) throws Exception {
        Path log = Files.createTempFile("skiplock-install-", ".log");
        Process process = new ProcessBuilder(new ArrayList<>(List.of(command))).directory(directory.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = process.waitFor(20, TimeUnit.MINUTES);
        if (!ended) {
            process.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        Files.delete(log);
        assertThat(ended && process.exitValue() == 0).as("%s in %s:%n%s", String.join(" ", command), directory,
                output.length() > 20_000 ? output.substring(output.length() - 20_000) : output).isTrue();
    }
}
