package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

/**
 * A README example that a test runs: the code between {@code // README:<marker>:begin} and
 * {@code // README:<marker>:end} in that test's source (indented 8 spaces) is exactly the first
 * {@code java} block after the README heading that shows it.
 */
final class ReadmeExamples {
    private static final Path README = Path.of("..").toAbsolutePath().normalize().resolve("README.md");

    private ReadmeExamples() {
    }

    static void assertReadmeShows(Class<?> test, String marker, String heading) throws IOException {
        String source = Files.readString(Path.of("src/test/java/dev/skiplock/conformance/" + test.getSimpleName() + ".java"));
        String begin = "// README:" + marker + ":begin\n";
        String example = source.substring(source.indexOf(begin) + begin.length(),
                source.indexOf("        // README:" + marker + ":end"));
        String dedented = example.lines().map(line -> line.length() >= 8 ? line.substring(8) : line.strip())
                .collect(Collectors.joining("\n"));
        String readme = Files.readString(README);
        int section = readme.indexOf(heading);
        assertThat(section).as("README section \"" + heading + "\"").isNotNegative();
        int start = readme.indexOf("```java\n", section) + "```java\n".length();
        String shown = readme.substring(start, readme.indexOf("\n```", start));
        assertThat(shown).isEqualTo(dedented);
    }
}
