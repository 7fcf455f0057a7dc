package dev.skiplock.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.skiplock.JobContext;
import dev.skiplock.JobStateException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A command's checkpoints as files (DESIGN §5, steps; seed ADR 0011: a re-run skips the stages
 * whose output exists). Before the command starts, its run's {@code steps} directory (the command
 * sees it as {@code $SKIPLOCK_STEPS}) holds one file per step the job finished, named after the
 * step and holding its output as JSON. The command records a finished stage by writing such a file
 * (atomically: {@code NAME.tmp}, then {@code mv} to {@code NAME}); the runner records every new file
 * as a step of the job, fenced like any step, while the command runs and once more after it
 * exited, before the job's outcome. A file's content is stored as JSON when it parses as JSON,
 * else as a string (without its trailing newline).
 */
final class StepFiles {
    static final String VARIABLE = "SKIPLOCK_STEPS";
    /** One JSON value and nothing after it: "200 OK" is text, not 200. */
    private static final ObjectReader JSON = ServerJson.MAPPER.reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final Path dir;
    private final JobContext<JsonNode> context;
    /**
     * Larger files are refused unread: the instance's {@code maxStepOutputBytes}, which would refuse
     * the output only after the file was read and parsed into a tree (many times its size).
     */
    private final long maxFileBytes;
    /** Files already recorded, or refused (reported once). */
    private final Set<String> seen = new HashSet<>();
    private boolean stale;

    StepFiles(Path dir, JobContext<JsonNode> context, long maxFileBytes) {
        this.dir = dir;
        this.context = context;
        this.maxFileBytes = maxFileBytes;
    }

    /**
     * Writes a file per finished step of the job, before the command starts. A first attempt has
     * none (only executions record steps, and this is the first), so it reads nothing; a later one
     * reads them (the library reads again on a new connection while the database does not answer:
     * a restart, a cut connection), and fails the attempt if it cannot: running without them would
     * run every finished stage again.
     */
    void writeFinished() throws IOException {
        Files.createDirectories(dir);
        if (context.attempt() <= 1) {
            return;
        }
        for (Map.Entry<String, JsonNode> step : context.steps().entrySet()) {
            JsonNode output = step.getValue();
            // as the command wrote it: text as text, anything else as JSON
            String content = output == null || output.isNull() ? "" : output.isTextual() ? output.asText()
                    : ServerJson.MAPPER.writeValueAsString(output);
            Files.writeString(dir.resolve(step.getKey()), content, StandardCharsets.UTF_8);
            seen.add(step.getKey());
        }
    }

    /**
     * Records the step files that appeared since the last look. Never fails the job: a file that
     * cannot be recorded (not a regular file, too large, unreadable, a refused name or output)
     * becomes a stderr log line of the job, and a database that does not answer after the
     * library's own retries (up to the lease's time) is asked again at the next look.
     */
    void record() throws Exception {
        if (stale || !Files.isDirectory(dir)) {
            return;
        }
        List<Path> files;
        try (Stream<Path> listed = Files.list(dir)) {
            files = listed.filter(file -> !file.getFileName().toString().endsWith(".tmp")).sorted().toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            return; // the directory is being changed or removed: look again next time
        }
        for (Path file : files) {
            String name = file.getFileName().toString();
            if (!seen.add(name)) {
                continue;
            }
            try {
                JsonNode output = read(file);
                context.step(name, () -> output);
            } catch (IOException e) {
                context.log(CommandRunner.NOTES, "skiplock: step file " + name + " not recorded: " + e.getMessage());
            } catch (JobStateException e) {
                stale = true; // this execution lost the job: whoever holds it now records the rest
                return;
            } catch (IllegalArgumentException | IllegalStateException e) {
                context.log(CommandRunner.NOTES, "skiplock: step file " + name + " not recorded: " + e.getMessage());
            } catch (RuntimeException e) {
                seen.remove(name); // the database did not answer: try again at the next look
                return;
            }
        }
    }

    private JsonNode read(Path file) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("not a regular file");
        }
        long limit = maxFileBytes + 1; // a trailing newline is not stored
        long size = Files.size(file);
        if (size > limit) {
            throw new IOException(size + " bytes, more than " + maxFileBytes + " (maxStepOutputBytes)");
        }
        // Never past the limit: the command may be writing the file in place (not by mv), or have put a
        // link in its place since the check (NOFOLLOW_LINKS: the open fails on one).
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            bytes = in.readNBytes((int) limit + 1);
        }
        if (bytes.length > limit) {
            throw new IOException("more than " + maxFileBytes + " bytes (maxStepOutputBytes)");
        }
        String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString(); // malformed: an IOException
        String content = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        if (content.isBlank()) {
            return null;
        }
        try {
            return JSON.readTree(content);
        } catch (JsonProcessingException e) {
            return TextNode.valueOf(content);
        }
    }
}
