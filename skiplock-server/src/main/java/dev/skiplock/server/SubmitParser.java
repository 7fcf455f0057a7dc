package dev.skiplock.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.Set;

/** Turns one enqueue body (API.md) into a {@link JobRequest}, naming the field of any error. */
final class SubmitParser {
    static final String COMMAND = "command";
    private static final Set<String> FIELDS = Set.of("kind", "queue", "args", "metadata", "priority", "maxAttempts",
            "timeoutSeconds", "runAt", "dependsOn", "uniqueKey", "durable", "traceparent");
    /** Command jobs run once and for at most an hour unless they say otherwise (DESIGN §1, API.md). */
    private static final int COMMAND_MAX_ATTEMPTS = 1;
    private static final int COMMAND_TIMEOUT_SECONDS = 3600;

    private final Tools tools;

    SubmitParser(Tools tools) {
        this.tools = tools;
    }

    /**
     * The request an enqueue body asks for; {@code "durable": false} gives an in-memory request
     * ({@link JobRequest#durable()}), which this service runs for kind {@code command} only.
     */
    JobRequest parse(JsonNode body, String prefix) {
        if (body == null || !body.isObject()) {
            throw ApiError.invalid(prefix.isEmpty() ? "body" : prefix, "must be a JSON object");
        }
        body.fieldNames().forEachRemaining(field -> {
            if (!FIELDS.contains(field)) {
                throw ApiError.invalid(prefix + field, "unknown field");
            }
        });
        try {
            String kind = text(body, "kind", prefix, null);
            if (kind == null) {
                throw ApiError.invalid(prefix + "kind", "is required");
            }
            boolean command = COMMAND.equals(kind);
            JsonNode args = body.get("args");
            Object storedArgs = command ? resolved(args, prefix) : args == null || args.isNull() ? null : args;
            JobRequest request = JobRequest.of(kind, storedArgs)
                    .withQueue(text(body, "queue", prefix, JobRequest.DEFAULT_QUEUE))
                    .withPriority(integer(body, "priority", prefix, 0));
            request = withLimits(request, body, prefix, command);
            request = withOptions(request, body, prefix);
            // as the enqueue would, but naming the job of a batch, and a periodic job before the server starts
            return withDurability(request, body, prefix, command).requireStorable();
        } catch (IllegalArgumentException e) {
            ApiError error = ApiError.invalid(e);
            throw error.field == null ? error
                    : new ApiError(400, error.code, prefix + e.getMessage(), prefix + error.field);
        }
    }

    /** Refuses a retry of a job this server would not take today ({@link Tools#checkRerun}). */
    void checkRetry(Job job) {
        if (COMMAND.equals(job.kind())) {
            tools.checkRerun(job.args());
        }
    }

    /** A command's args resolved to its argv; a batch's errors name the job ({@code jobs[1].args.tool}). */
    private Object resolved(JsonNode args, String prefix) {
        try {
            return tools.resolve(args);
        } catch (ApiError e) {
            throw prefix.isEmpty() || e.field == null ? e
                    : new ApiError(e.status, e.code, prefix + e.getMessage(), prefix + e.field);
        }
    }

    /**
     * Attempts and timeout: a command defaults to one attempt of at most an hour. A
     * {@code timeoutSeconds} of null is no field, as for every optional field; the library calls the
     * limit {@code timeout}, so its refusal is named here.
     */
    private static JobRequest withLimits(JobRequest request, JsonNode body, String prefix, boolean command) {
        if (body.hasNonNull("maxAttempts")) {
            request = request.withMaxAttempts(integer(body, "maxAttempts", prefix, 0));
        } else if (command) {
            request = request.withMaxAttempts(COMMAND_MAX_ATTEMPTS);
        }
        if (body.hasNonNull("timeoutSeconds") || command) {
            int timeout = integer(body, "timeoutSeconds", prefix, COMMAND_TIMEOUT_SECONDS);
            if (timeout < 1 || timeout > JobRequest.MAX_TIMEOUT.toSeconds()) {
                throw ApiError.invalid(prefix + "timeoutSeconds", "must be between 1 and "
                        + JobRequest.MAX_TIMEOUT.toSeconds() + " seconds, got " + timeout);
            }
            request = request.withTimeout(Duration.ofSeconds(timeout));
        }
        return request;
    }

    /** The optional fields that map one to one onto a {@link JobRequest} option. */
    private static JobRequest withOptions(JobRequest request, JsonNode body, String prefix) {
        if (body.hasNonNull("runAt")) {
            request = request.withRunAt(instant(body, "runAt", prefix));
        }
        String uniqueKey = text(body, "uniqueKey", prefix, null);
        if (uniqueKey != null) {
            request = request.withUniqueKey(uniqueKey);
        }
        String traceparent = text(body, "traceparent", prefix, null);
        if (traceparent != null) {
            request = request.withTraceparent(traceparent);
        }
        if (body.hasNonNull("metadata")) {
            if (!body.get("metadata").isObject()) {
                throw ApiError.invalid(prefix + "metadata", "must be an object");
            }
            request = request.withMetadata(ServerJson.MAPPER.convertValue(body.get("metadata"), Map.class));
        }
        if (body.hasNonNull("dependsOn")) {
            request = request.withDependsOn(ids(body.get("dependsOn"), prefix + "dependsOn"));
        }
        return request;
    }

    /** {@code "durable": false}: an in-memory job, which this service runs for kind {@code command} only. */
    private static JobRequest withDurability(JobRequest request, JsonNode body, String prefix, boolean command) {
        JsonNode durable = body.get("durable");
        if (durable == null || durable.isNull()) {
            return request;
        }
        if (!durable.isBoolean()) {
            throw ApiError.invalid(prefix + "durable", "must be true or false");
        }
        if (durable.asBoolean()) {
            return request;
        }
        if (!command) {
            throw ApiError.invalid(prefix + "durable", "in-memory jobs run kind command only");
        }
        return request.withDurable(false);
    }

    private static List<UUID> ids(JsonNode node, String field) {
        if (!node.isArray()) {
            throw ApiError.invalid(field, "must be an array of job ids");
        }
        List<UUID> ids = new ArrayList<>();
        for (JsonNode item : node) {
            try {
                ids.add(UUID.fromString(item.asText()));
            } catch (IllegalArgumentException e) {
                throw ApiError.invalid(field, "not a job id: '" + item.asText() + "'");
            }
            if (!item.isTextual()) {
                throw ApiError.invalid(field, "must be an array of job ids");
            }
        }
        return ids;
    }

    private static String text(JsonNode body, String field, String prefix, String fallback) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.isTextual()) {
            throw ApiError.invalid(prefix + field, "must be a string");
        }
        return node.asText();
    }

    private static int integer(JsonNode body, String field, String prefix, int fallback) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            throw ApiError.invalid(prefix + field, "must be an integer");
        }
        return node.asInt();
    }

    private static Instant instant(JsonNode body, String field, String prefix) {
        try {
            return Instant.parse(text(body, field, prefix, null));
        } catch (DateTimeParseException e) {
            throw ApiError.invalid(prefix + field, "must be an ISO-8601 UTC time like 2026-01-31T12:00:00Z");
        }
    }
}
