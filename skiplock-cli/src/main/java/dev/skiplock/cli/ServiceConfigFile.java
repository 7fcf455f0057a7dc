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
        requireObject(root, "--config", "{queues, tools, retention, cron} (a key without its colon reads as text)");
        root.fieldNames().forEachRemaining(key -> {
            if (!List.of("queues", "tools", "retention", "cron").contains(key)) {
                throw new IllegalArgumentException(key + ": unknown key in " + file);
            }
        });
        Map<String, Integer> queues = new LinkedHashMap<>();
        JsonNode queueNodes = root.path("queues");
        requireObject(queueNodes, "queues", "{name: {concurrency: N}}");
        queueNodes.fields().forEachRemaining(entry -> {
            requireOnly(entry.getValue(), "queues." + entry.getKey(), List.of("concurrency"));
            JsonNode concurrency = entry.getValue().path("concurrency");
            if (!concurrency.canConvertToInt() || !concurrency.isIntegralNumber()) {
                throw new IllegalArgumentException("queues." + entry.getKey() + ".concurrency: must be an integer");
            }
            queues.put(entry.getKey(), concurrency.asInt());
        });
        JsonNode retentionNode = root.path("retention");
        requireObject(retentionNode, "retention", "{finished: 7d}");
        requireOnly(retentionNode, "retention", List.of("finished"));
        Duration retention = retentionNode.has("finished")
                ? Durations.parse("retention.finished", retentionNode.path("finished").asText()) : null;
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
        requireObject(node, prefix, "{name: {argv: [...]}}");
        node.fields().forEachRemaining(entry -> {
            requireOnly(entry.getValue(), prefix + "." + entry.getKey(), List.of("argv"));
            JsonNode argv = entry.getValue().path("argv");
            if (!argv.isArray() || argv.isEmpty()) {
                throw new IllegalArgumentException(prefix + "." + entry.getKey() + ".argv: must be a non-empty list");
            }
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < argv.size(); i++) {
                if (!argv.get(i).isTextual()) {
                    throw new IllegalArgumentException(prefix + "." + entry.getKey() + ".argv[" + i + "]: must be a string");
                }
                parts.add(argv.get(i).asText());
            }
            tools.put(entry.getKey(), parts);
        });
        return tools;
    }

    /** Refuses a present {@code node} that is not a mapping: a scalar or a list there was ignored. */
    private static void requireObject(JsonNode node, String key, String form) {
        if (!node.isMissingNode() && !node.isNull() && !node.isObject()) {
            throw new IllegalArgumentException(key + ": must be a mapping " + form);
        }
    }

    /** Refuses a key of {@code node} other than {@code known}: a typo left the default in place. */
    private static void requireOnly(JsonNode node, String key, List<String> known) {
        if (!node.isObject()) {
            if (!node.isMissingNode() && !node.isNull()) {
                throw new IllegalArgumentException(key + ": must be a mapping of " + known);
            }
            return;
        }
        node.fieldNames().forEachRemaining(name -> {
            if (!known.contains(name)) {
                throw new IllegalArgumentException(key + "." + name + ": unknown key");
            }
        });
    }

    private static JsonNode readTree(Path file, String option) {
        try {
            return YAML.readTree(Files.readString(file));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            // one line: the parser's message spans several, with the document's text
            com.fasterxml.jackson.core.JsonLocation at = e.getLocation();
            throw new IllegalArgumentException(option + ": cannot read " + file + ": " + e.getOriginalMessage().lines()
                    .findFirst().orElse("not YAML") + (at == null ? "" : " (line " + at.getLineNr() + ", column "
                    + at.getColumnNr() + ")"));
        } catch (IOException e) {
            throw new IllegalArgumentException(option + ": cannot read " + file + ": " + e.getMessage());
        }
    }
}
