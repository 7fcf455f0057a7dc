package dev.skiplock.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.skiplock.server.CronEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server config file ({@code --config}, YAML) and the tools file ({@code --tools}, YAML or
 * JSON) of API.md. Every key is optional; unknown keys and keys this version cannot honour are
 * rejected naming the key.
 */
record ServiceConfigFile(Map<String, Integer> queues, Map<String, List<String>> tools, Duration retention,
        List<CronEntry> cron) {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    static ServiceConfigFile empty() {
        return new ServiceConfigFile(Map.of(), Map.of(), null, List.of());
    }

    static ServiceConfigFile read(Path file) {
        JsonNode root = readTree(file, "--config");
        if (root == null || root.isNull()) {
            return empty();
        }
        root.fieldNames().forEachRemaining(key -> {
            if (!List.of("queues", "tools", "retention", "cron").contains(key)) {
                throw new IllegalArgumentException(key + ": unknown key in " + file);
            }
        });
        Map<String, Integer> queues = new LinkedHashMap<>();
        root.path("queues").fields().forEachRemaining(entry -> {
            JsonNode concurrency = entry.getValue().path("concurrency");
            if (!concurrency.canConvertToInt() || !concurrency.isIntegralNumber()) {
                throw new IllegalArgumentException("queues." + entry.getKey() + ".concurrency: must be an integer");
            }
            queues.put(entry.getKey(), concurrency.asInt());
        });
        Duration retention = root.path("retention").has("finished")
                ? Durations.parse("retention.finished", root.path("retention").path("finished").asText()) : null;
        return new ServiceConfigFile(queues, tools(root.path("tools"), "tools"), retention, cron(root.path("cron")));
    }

    private static List<CronEntry> cron(JsonNode node) {
        List<CronEntry> entries = new ArrayList<>();
        if (node.isMissingNode() || node.isNull()) {
            return entries;
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException("cron: must be a list of {name, schedule, timezone, job}");
        }
        for (int i = 0; i < node.size(); i++) {
            JsonNode entry = node.get(i);
            int index = i;
            entry.fieldNames().forEachRemaining(key -> {
                if (!List.of("name", "schedule", "timezone", "job").contains(key)) {
                    throw new IllegalArgumentException("cron[" + index + "]." + key + ": unknown key");
                }
            });
            entries.add(new CronEntry(entry.path("name").asText(null), entry.path("schedule").asText(null),
                    entry.path("timezone").asText(null), entry.get("job")));
        }
        return entries;
    }

    static Map<String, List<String>> readTools(Path file) {
        return tools(readTree(file, "--tools"), "tools");
    }

    private static Map<String, List<String>> tools(JsonNode node, String prefix) {
        Map<String, List<String>> tools = new LinkedHashMap<>();
        if (node == null || node.isMissingNode() || node.isNull()) {
            return tools;
        }
        node.fields().forEachRemaining(entry -> {
            JsonNode argv = entry.getValue().path("argv");
            if (!argv.isArray() || argv.isEmpty()) {
                throw new IllegalArgumentException(prefix + "." + entry.getKey() + ".argv: must be a non-empty list");
            }
            List<String> parts = new ArrayList<>();
            argv.forEach(part -> parts.add(part.asText()));
            tools.put(entry.getKey(), parts);
        });
        return tools;
    }

    private static JsonNode readTree(Path file, String option) {
        try {
            return YAML.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new IllegalArgumentException(option + ": cannot read " + file + ": " + e.getMessage());
        }
    }
}
