package dev.skiplock;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.StorableText;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * What to enqueue: a kind, its arguments (any Jackson-serializable value) and per-job options.
 * Immutable; every {@code with…} method returns a copy and validates at once, naming the field.
 *
 * <pre>{@code
 * JobRequest.of("email.send", new SendEmail("a@example.com")).withQueue("mail").withPriority(5)
 * }</pre>
 *
 * @param maxAttempts {@code null} takes {@link SkiplockConfig#defaultMaxAttempts()}
 * @param runAt       {@code null} means now (database clock); a time from year 1 to year 9999 (UTC), which
 *                    every database and the COPY path store
 * @param timeout     per-attempt limit; {@code null} takes {@link SkiplockConfig#defaultTimeout()}
 * @param uniqueKey   while a job with this key is waiting, queued or running, enqueue returns it instead
 * @param dependsOn   jobs (of the same tenant) that must succeed first; the job waits until they do and
 *                    fails if one of them fails, times out or is cancelled
 * @param traceparent the W3C trace context of the enqueuing code ({@code 00-<trace id>-<parent id>-<flags>}),
 *                    stored with the job and returned with it; {@code null} for none
 * @param durable     {@code true} (the default): stored in the database, run by any worker, survives
 *                    restarts. {@code false}: an in-memory job, run at once in this process by the
 *                    handler registered on this instance and lost when it closes (see
 *                    {@link JobClient#enqueue(JobRequest)} for what such a job supports)
 */
public record JobRequest(
        String kind,
        Object args,
        String queue,
        int priority,
        Integer maxAttempts,
        Instant runAt,
        Duration timeout,
        String uniqueKey,
        Map<String, Object> metadata,
        List<UUID> dependsOn,
        String traceparent,
        boolean durable) {

    public static final String DEFAULT_QUEUE = "default";
    public static final int MIN_PRIORITY = -1000;
    public static final int MAX_PRIORITY = 1000;
    public static final int MAX_ATTEMPTS_LIMIT = 1000;
    public static final Duration MAX_TIMEOUT = Duration.ofDays(7);
    public static final int MAX_DEPENDENCIES = 100;
    /**
     * How deep a job's args, metadata, result or progress, or a signal's payload, may nest arrays and
     * objects (a result deeper fails its job, a progress deeper is refused to its handler). JSON
     * writers stop at 1,000 levels (Jackson's default), so a document just under that, once wrapped
     * in a response or a batch's statement, could not be written: the job list that held it answered
     * 500, for every job on the page.
     */
    public static final int MAX_NESTING = 100;
    /** The earliest {@code runAt}: a time before it is due all the same. */
    public static final Instant EARLIEST_RUN_AT = Instant.parse("0001-01-01T00:00:00Z");
    /**
     * The latest {@code runAt}: past it, SQLite's milliseconds overflow or PostgreSQL refuses the
     * time (its failure looked like a database outage), and COPY's text has no form for it.
     */
    public static final Instant LATEST_RUN_AT = Instant.parse("9999-12-31T23:59:59.999Z");
    /** Version 00 has exactly four fields; a later version may append more, which are kept as given. */
    private static final Pattern TRACEPARENT =
            Pattern.compile("(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}(-[ -~]*)?");
    private static final int MAX_TRACEPARENT_LENGTH = 512;

    public JobRequest {
        Names.check("kind", kind);
        Names.check("queue", queue);
        if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
            throw new IllegalArgumentException("priority: must be between " + MIN_PRIORITY + " and "
                    + MAX_PRIORITY + ", got " + priority);
        }
        if (maxAttempts != null && (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT)) {
            throw new IllegalArgumentException("maxAttempts: must be between 1 and " + MAX_ATTEMPTS_LIMIT
                    + ", got " + maxAttempts);
        }
        if (timeout != null && (timeout.toMillis() < 1000 || timeout.compareTo(MAX_TIMEOUT) > 0)) {
            throw new IllegalArgumentException("timeout: must be between 1 second and 7 days, got " + timeout);
        }
        if (runAt != null && (runAt.isBefore(EARLIEST_RUN_AT) || runAt.isAfter(LATEST_RUN_AT))) {
            throw new IllegalArgumentException("runAt: must be between " + EARLIEST_RUN_AT + " and " + LATEST_RUN_AT
                    + ", got " + runAt);
        }
        if (uniqueKey != null) {
            Names.check("uniqueKey", uniqueKey);
        }
        if (metadata != null && metadata.entrySet().stream().anyMatch(entry -> entry.getKey() == null || entry.getValue() == null)) {
            // Map.copyOf threw a NullPointerException: the service answered a JSON null with a 500
            throw new IllegalArgumentException("metadata: keys and values must not be null (leave the key out)");
        }
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        if (dependsOn == null) {
            dependsOn = List.of();
        }
        if (dependsOn.size() > MAX_DEPENDENCIES || dependsOn.stream().anyMatch(java.util.Objects::isNull)) {
            throw new IllegalArgumentException("dependsOn: at most " + MAX_DEPENDENCIES + " job ids, none null");
        }
        dependsOn = List.copyOf(new LinkedHashSet<>(dependsOn));
        if (traceparent != null && (traceparent.length() > MAX_TRACEPARENT_LENGTH
                || !TRACEPARENT.matcher(traceparent).matches()
                || (traceparent.startsWith("00-") && traceparent.length() != 55))) {
            throw new IllegalArgumentException("traceparent: must be a W3C trace context "
                    + "(00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>), got " + abbreviate(traceparent));
        }
    }

    /** A job of {@code kind} with {@code args} ({@code null} is stored as an empty object) on the default queue. */
    public static JobRequest of(String kind, Object args) {
        return new JobRequest(kind, args, DEFAULT_QUEUE, 0, null, null, null, null, Map.of(), List.of(), null, true);
    }

    public JobRequest withQueue(String newQueue) {
        return with(fields -> fields.queue = newQueue);
    }

    /** Higher runs first; {@value #MIN_PRIORITY}..{@value #MAX_PRIORITY}, default 0. */
    public JobRequest withPriority(int newPriority) {
        return with(fields -> fields.priority = newPriority);
    }

    public JobRequest withMaxAttempts(int newMaxAttempts) {
        return with(fields -> fields.maxAttempts = newMaxAttempts);
    }

    public JobRequest withRunAt(Instant newRunAt) {
        return with(fields -> fields.runAt = newRunAt);
    }

    public JobRequest withTimeout(Duration newTimeout) {
        return with(fields -> fields.timeout = newTimeout);
    }

    public JobRequest withUniqueKey(String newUniqueKey) {
        return with(fields -> fields.uniqueKey = newUniqueKey);
    }

    /** Jobs that must succeed before this one runs (see {@link #dependsOn()}). */
    public JobRequest withDependsOn(List<UUID> newDependsOn) {
        return with(fields -> fields.dependsOn = newDependsOn);
    }

    public JobRequest withMetadata(Map<String, Object> newMetadata) {
        return with(fields -> fields.metadata = newMetadata);
    }

    /** The enqueuing code's W3C trace context (see {@link #traceparent()}). */
    public JobRequest withTraceparent(String newTraceparent) {
        return with(fields -> fields.traceparent = newTraceparent);
    }

    /**
     * {@code false} makes this an in-memory job (see {@link #durable()}); default {@code true}. The
     * fields an in-memory job cannot honour ({@code runAt}, {@code uniqueKey}, {@code dependsOn}) are
     * refused when it is enqueued, naming the field.
     */
    public JobRequest withDurable(boolean newDurable) {
        return with(fields -> fields.durable = newDurable);
    }

    /**
     * Returns this request, or throws an {@link IllegalArgumentException} naming {@code args} or
     * {@code metadata} if either holds what no job's data can hold: a NUL character, a lone
     * surrogate, or arrays and objects nested deeper than {@link #MAX_NESTING} levels. An enqueue refuses such a request the same way; this checks one where no database
     * is at hand (a service's periodic jobs, checked before it starts) or before its enqueue.
     */
    public JobRequest requireStorable() {
        requireStorable("args", args == null || args instanceof JsonNode ? (JsonNode) args : Json.MAPPER.valueToTree(args));
        if (!metadata.isEmpty()) {
            requireStorable("metadata", Json.MAPPER.valueToTree(metadata));
        }
        return this;
    }

    /**
     * Throws naming {@code field} if {@code document} is not storable in every database: PostgreSQL's
     * jsonb takes no NUL character, and a lone surrogate has no UTF-8 form. Refused by name rather
     * than stored changed (what a handler writes is stored replaced, {@link StorableText}) or failed
     * by one database and not the other.
     */
    static void requireStorable(String field, JsonNode document) {
        // depth first: the text check walks the whole tree, as deep as it goes
        StorableText.requireNesting(field, document);
        if (!StorableText.isStorable(document)) {
            throw new IllegalArgumentException(field + ": contains a NUL character (U+0000) or a lone surrogate,"
                    + " which a job's data cannot hold (PostgreSQL stores neither)");
        }
    }

    private static String abbreviate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "…";
    }

    /** A copy with some components changed; the canonical constructor validates the result. */
    private JobRequest with(Consumer<Fields> change) {
        Fields fields = new Fields(this);
        change.accept(fields);
        return fields.build();
    }

    /** The components by name, so each {@code with…} method names only what it changes. */
    private static final class Fields {
        String kind;
        Object args;
        String queue;
        int priority;
        Integer maxAttempts;
        Instant runAt;
        Duration timeout;
        String uniqueKey;
        Map<String, Object> metadata;
        List<UUID> dependsOn;
        String traceparent;
        boolean durable;

        Fields(JobRequest request) {
            kind = request.kind;
            args = request.args;
            queue = request.queue;
            priority = request.priority;
            maxAttempts = request.maxAttempts;
            runAt = request.runAt;
            timeout = request.timeout;
            uniqueKey = request.uniqueKey;
            metadata = request.metadata;
            dependsOn = request.dependsOn;
            traceparent = request.traceparent;
            durable = request.durable;
        }

        JobRequest build() {
            return new JobRequest(kind, args, queue, priority, maxAttempts, runAt, timeout, uniqueKey, metadata,
                    dependsOn, traceparent, durable);
        }
    }
}
