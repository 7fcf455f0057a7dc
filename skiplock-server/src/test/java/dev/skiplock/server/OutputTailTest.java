package dev.skiplock.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.JobContext;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a command's output file becomes log lines: long lines are cut into pieces by their bytes alone. */
class OutputTailTest {
    private static final int MAX = OutputTail.MAX_LINE_BYTES;

    @TempDir
    Path dir;

    /**
     * A long line of two-byte characters whose first piece fills exactly where a read of the file
     * ends (reads of READ_BYTES): the piece must not end inside a character, which a cut decided
     * by the byte after the read's end did (each half became U+FFFD).
     */
    @Test
    void aLongLineIsCutBetweenCharactersWhereverAReadEnds() throws Exception {
        assertThat(MAX % OutputTail.READ_BYTES).as("a piece fills exactly where a read ends").isZero();
        String text = "a" + "é".repeat(40_000);
        List<String> lines = tail(bytes(text + "\n"), 0);

        assertThat(lines).hasSize(2).noneMatch(line -> line.contains("\uFFFD"));
        assertThat(String.join("", lines)).isEqualTo(text);
        assertThat(lines.getFirst().getBytes(StandardCharsets.UTF_8)).hasSize(MAX + 1);
    }

    /** A line of exactly the piece size is one line: its newline does not add an empty one. */
    @Test
    void aLineOfExactlyThePieceSizeIsOneLine() throws Exception {
        String full = "x".repeat(MAX);
        assertThat(tail(bytes(full + "\ny\n"), 0)).containsExactly(full, "y");
    }

    /** Bytes that are no UTF-8 (a run of continuation bytes) are still cut into bounded pieces. */
    @Test
    void outputThatIsNoUtf8IsCutIntoBoundedPieces() throws Exception {
        byte[] binary = new byte[3 * MAX];
        java.util.Arrays.fill(binary, (byte) 0x80);
        List<String> lines = tail(binary, 0);

        assertThat(lines).hasSize(3);
        assertThat(lines.getFirst()).hasSize(MAX + 3); // each invalid byte decodes to one U+FFFD
    }

    /** An adopter skips as many pieces as were recorded and logs the rest. */
    @Test
    void theRecordedPiecesAreSkipped() throws Exception {
        String text = "é".repeat(MAX);
        List<String> all = tail(bytes(text + "\nlast\n"), 0);
        assertThat(all).hasSize(3);
        assertThat(tail(bytes(text + "\nlast\n"), 2)).containsExactly("last");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private List<String> tail(byte[] content, long alreadyLogged) throws Exception {
        Path file = Files.write(dir.resolve("out-" + System.nanoTime()), content);
        List<String> logged = new ArrayList<>();
        @SuppressWarnings("unchecked")
        JobContext<Object> context = (JobContext<Object>) Proxy.newProxyInstance(JobContext.class.getClassLoader(),
                new Class<?>[] {JobContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("log") && args[0].equals("stdout")) {
                        logged.add((String) args[1]);
                    }
                    return null;
                });
        new OutputTail(file, "stdout", alreadyLogged, context, () -> true).run();
        return logged;
    }
}
