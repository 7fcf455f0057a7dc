package dev.skiplock.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.Names;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What command jobs may run: the named tools of the config ({@code {name: {argv: [...]}}} with
 * {@code {param}} placeholders), and any argv only when the operator allowed arbitrary commands.
 * Checked where jobs are submitted; the stored job carries the resolved argv (API.md).
 */
final class Tools {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z0-9_.-]+)}");

    private final Map<String, List<String>> tools;
    private final boolean allowCommands;

    Tools(Map<String, List<String>> tools, boolean allowCommands) {
        tools.keySet().forEach(name -> Names.check("tools", name));
        this.tools = Map.copyOf(tools);
        this.allowCommands = allowCommands;
    }

    /**
     * Refuses to run a stored command job again ({@code retry}) when this server would not take it
     * today: an arbitrary argv, or a tool given an environment or directory, where arbitrary
     * commands are not allowed. A job submitted while they were, retried after a restart without
     * {@code --allow-commands}, would otherwise run what the server now refuses. A tool's stored
     * argv runs as resolved at submit.
     *
     * @throws ApiError 409 naming the field that needs {@code --allow-commands}
     */
    void checkRerun(JsonNode stored) {
        if (allowCommands) {
            return;
        }
        if (stored == null || !stored.has("tool")) {
            throw new ApiError(409, "failed_precondition", "args.argv: arbitrary commands are disabled on this server"
                    + " (start it with --allow-commands); this job's argv is no configured tool's", "args.argv");
        }
        for (String field : List.of("env", "cwd")) {
            if (stored.has(field)) {
                throw new ApiError(409, "failed_precondition", "args." + field + ": a tool runs as configured: "
                        + field + " is taken only where arbitrary commands are allowed (--allow-commands)", "args." + field);
            }
        }
    }

    /** Validates command args and returns what is stored: {@code {argv, env, cwd}} (+ {@code tool, params}). */
    ObjectNode resolve(JsonNode args) {
        if (args == null || !args.isObject()) {
            throw ApiError.invalid("args", "a command job needs {\"argv\": [...]} or {\"tool\": \"name\"}");
        }
        args.fieldNames().forEachRemaining(field -> {
            if (!List.of("argv", "env", "cwd", "tool", "params").contains(field)) {
                throw ApiError.invalid("args." + field, "unknown field");
            }
        });
        ObjectNode stored = ServerJson.object();
        if (args.has("tool")) {
            if (args.has("argv")) {
                throw ApiError.invalid("args.argv", "give either argv or tool, not both");
            }
            if (!allowCommands) {
                // The tool's configuration says what runs; an environment or directory of the caller's
                // (LD_PRELOAD, PATH, GIT_SSH_COMMAND, PERL5OPT...) would run anything it likes.
                for (String field : List.of("env", "cwd")) {
                    if (args.has(field)) {
                        throw ApiError.invalid("args." + field, "a tool runs as configured: " + field
                                + " is taken only where arbitrary commands are allowed (--allow-commands)");
                    }
                }
            }
            stored.set("argv", programFirst(toolArgv(args), "args.params"));
            stored.put("tool", args.get("tool").asText());
            stored.set("params", args.has("params") ? args.get("params") : ServerJson.object());
        } else {
            if (!allowCommands) {
                throw ApiError.invalid("args.argv", "arbitrary commands are disabled on this server "
                        + "(start it with --allow-commands, or submit a configured tool)");
            }
            stored.set("argv", programFirst(stringArray(args.get("argv"), "args.argv"), "args.argv[0]"));
        }
        if (args.has("env")) {
            JsonNode env = args.get("env");
            if (!env.isObject()) {
                throw ApiError.invalid("args.env", "must be an object of strings");
            }
            env.fields().forEachRemaining(entry -> {
                if (!entry.getKey().matches("[A-Za-z_][A-Za-z0-9_]{0,127}") || !entry.getValue().isTextual()) {
                    throw ApiError.invalid("args.env", "names must be [A-Za-z_][A-Za-z0-9_]* and values strings");
                }
            });
            stored.set("env", env);
        }
        if (args.has("cwd")) {
            if (!args.get("cwd").isTextual() || args.get("cwd").asText().isEmpty()) {
                throw ApiError.invalid("args.cwd", "must be a non-empty string");
            }
            stored.put("cwd", args.get("cwd").asText());
        }
        return stored;
    }

    private ArrayNode toolArgv(JsonNode args) {
        JsonNode nameNode = args.get("tool");
        if (!nameNode.isTextual() || !tools.containsKey(nameNode.asText())) {
            throw ApiError.invalid("args.tool", "unknown tool '" + nameNode.asText() + "'");
        }
        JsonNode params = args.has("params") ? args.get("params") : ServerJson.object();
        if (!params.isObject()) {
            throw ApiError.invalid("args.params", "must be an object");
        }
        ArrayNode argv = ServerJson.MAPPER.createArrayNode();
        for (String part : tools.get(nameNode.asText())) {
            Matcher matcher = PLACEHOLDER.matcher(part);
            StringBuilder resolved = new StringBuilder();
            while (matcher.find()) {
                JsonNode value = params.get(matcher.group(1));
                if (value == null || value.isContainerNode() || value.isNull()) {
                    throw ApiError.invalid("args.params." + matcher.group(1), "is required by tool "
                            + nameNode.asText() + " and must be a string or number");
                }
                matcher.appendReplacement(resolved, Matcher.quoteReplacement(value.asText()));
            }
            matcher.appendTail(resolved);
            argv.add(resolved.toString());
        }
        return argv;
    }

    /** {@code argv}, whose first string names the program to run: an empty one is refused naming {@code field}. */
    private static ArrayNode programFirst(ArrayNode argv, String field) {
        if (argv.isEmpty() || argv.get(0).asText().isEmpty()) {
            throw ApiError.invalid(field, "the program to run (argv[0]) must be a non-empty string");
        }
        return argv;
    }

    private static ArrayNode stringArray(JsonNode node, String field) {
        if (node == null || !node.isArray() || node.isEmpty()) {
            throw ApiError.invalid(field, "must be a non-empty array of strings");
        }
        node.forEach(item -> {
            if (!item.isTextual()) {
                throw ApiError.invalid(field, "must be a non-empty array of strings");
            }
        });
        return (ArrayNode) node;
    }
}
