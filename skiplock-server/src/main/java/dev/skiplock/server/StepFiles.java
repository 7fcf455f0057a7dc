package dev.skiplock.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.skiplock.JobContext;
import dev.skiplock.JobStateException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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

    private final Path dir;
    private final JobContext<JsonNode> context;
    /** Files already recorded, or refused (reported once). */
    private final Set<String> seen = new HashSet<>();
    private boolean stale;

    StepFiles(Path dir, JobContext<JsonNode> context) {
        this.dir = dir;
        this.context = context;
    }

    /** Writes a file per finished step of the job, before the command starts. */
    void writeFinished() throws IOException {
        Files.createDirectories(dir);
        for (Map.Entry<String, JsonNode> step : context.steps().entrySet()) {
            Files.writeString(dir.resolve(step.getKey()), ServerJson.MAPPER.writeValueAsString(step.getValue()),
                    StandardCharsets.UTF_8);
            seen.add(step.getKey());
        }
    }

    /** Records the step files that appeared since the last look; problems become stderr log lines of the job. */
    void record() throws Exception {
        if (stale || !Files.isDirectory(dir)) {
            return;
        }
        List<Path> files;
        try (Stream<Path> listed = Files.list(dir)) {
            files = listed.filter(file -> !file.getFileName().toString().endsWith(".tmp")).sorted().toList();
        }
        for (Path file : files) {
            String name = file.getFileName().toString();
            if (!seen.add(name)) {
                continue;
            }
            try {
                JsonNode output = read(file);
                context.step(name, () -> output);
            } catch (JobStateException e) {
                stale = true; // this execution lost the job: whoever holds it now records the rest
                return;
            } catch (IllegalArgumentException | IllegalStateException e) {
                context.log("stderr", "skiplock: step file " + name + " not recorded: " + e.getMessage());
            } catch (RuntimeException e) {
                seen.remove(name); // the database did not answer: try again at the next look
                return;
            }
        }
    }

    private static JsonNode read(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        String content = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        if (content.isBlank()) {
            return null;
        }
        try {
            return ServerJson.MAPPER.readTree(content);
        } catch (JsonProcessingException e) {
            return TextNode.valueOf(content);
        }
    }
}
