package dev.skiplock.internal.store;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import dev.skiplock.internal.Json;
import dev.skiplock.spi.Dialect;
import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The columns of {@code skiplock_jobs}, declared once. The row mapper ({@link JobRows}), the JSON
 * that {@code insert_jobs} reads, the parameters of {@code insert_queued_job} and the rows that
 * {@code copy_jobs} streams are all derived from this list, so a new job field is one {@link Job}
 * component, one entry here, one migration and the statements that name columns
 * ({@code JobFieldsContract} fails until every path carries it).
 */
final class JobColumns {
    /** Who gives a column its value when the job is inserted. */
    enum Origin {
        /**
         * the enqueue request: written by {@code insert_jobs} (JSON key = column name),
         * {@code insert_queued_job} (parameter name = column name) and {@code copy_jobs}
         */
        REQUEST,
        /** the database clock of the inserting transaction ({@code requested_at}, {@code finished_at}) */
        INSERT_CLOCK,
        /** the default at insert, later the worker or the client (attempt, lease, outcome, ...) */
        LATER
    }

    /** One column: its name, SQL type family, origin, and the {@link Job} component it maps to. */
    record Column<T>(String name, Type<T> type, Origin origin, Function<Job, T> get, BiConsumer<Job.Builder, T> set) {
        void read(ResultSet row, int index, Dialect dialect, Job.Builder job) throws SQLException {
            set.accept(job, type.read(row, index, dialect));
        }

        /** Writes {@code "name": value} of the job; a {@code null} is written as JSON null. */
        void writeJson(JsonGenerator json, Job job) throws IOException {
            json.writeFieldName(name);
            T value = get.apply(job);
            if (value == null) {
                json.writeNull();
            } else {
                type.writeJson(json, value);
            }
        }

        Object copyValue(Job job) {
            T value = get.apply(job);
            return value == null ? null : type.copyValue(value);
        }
    }

    /** How values of one SQL type family are read, written as insert JSON and streamed by COPY. */
    record Type<T>(Reader<T> reader, JsonWriter<T> writer, Function<T, Object> copyForm) {
        T read(ResultSet row, int index, Dialect dialect) throws SQLException {
            return reader.read(row, index, dialect);
        }

        void writeJson(JsonGenerator json, T value) throws IOException {
            writer.write(json, value);
        }

        /** The value as {@link dev.skiplock.spi.BulkCopy} takes it. */
        Object copyValue(T value) {
            return copyForm.apply(value);
        }
    }

    @FunctionalInterface
    interface Reader<T> {
        T read(ResultSet row, int index, Dialect dialect) throws SQLException;
    }

    @FunctionalInterface
    interface JsonWriter<T> {
        void write(JsonGenerator json, T value) throws IOException;
    }

    static final Type<UUID> ID = new Type<>((row, index, dialect) -> dialect.getUuid(row, index),
            (json, value) -> json.writeString(value.toString()), value -> value);
    static final Type<String> TEXT = new Type<>((row, index, dialect) -> row.getString(index),
            JsonGenerator::writeString, value -> value);
    /** A JSON document column; its insert and COPY form is its JSON text ({@link #documentText}). */
    static final Type<JsonNode> DOCUMENT = new Type<>((row, index, dialect) -> Json.read(row.getString(index)),
            JsonGenerator::writeTree, JobColumns::documentText);
    /** An integer column that may be NULL. */
    static final Type<Integer> INTEGER = new Type<>((row, index, dialect) -> {
        int value = row.getInt(index);
        return row.wasNull() ? null : value;
    }, JsonGenerator::writeNumber, value -> value);
    static final Type<Boolean> FLAG = new Type<>((row, index, dialect) -> row.getBoolean(index),
            JsonGenerator::writeBoolean, value -> value);
    /** A timestamp; insert JSON carries epoch milliseconds (both dialects turn them into their time type). */
    static final Type<Instant> TIME = new Type<>((row, index, dialect) -> dialect.getInstant(row, index),
            (json, value) -> json.writeNumber(value.toEpochMilli()), value -> value);
    static final Type<JobStatus> STATUS = new Type<>(
            (row, index, dialect) -> JobStatus.fromWireName(row.getString(index)),
            (json, value) -> json.writeString(value.wireName()), JobStatus::wireName);
    /** A JSON array of job ids ({@code depends_on}). */
    static final Type<List<UUID>> IDS = new Type<>((row, index, dialect) -> ids(row.getString(index)),
            (json, value) -> {
                json.writeStartArray();
                for (UUID id : value) {
                    json.writeString(id.toString());
                }
                json.writeEndArray();
            },
            value -> value.isEmpty() ? "[]" : Json.write(value.stream().map(UUID::toString).toList()));

    private static final List<Column<?>> ALL = List.of(
            column("id", ID, Origin.REQUEST, Job::id, Job.Builder::id),
            column("tenant", TEXT, Origin.REQUEST, Job::tenant, Job.Builder::tenant),
            column("queue", TEXT, Origin.REQUEST, Job::queue, Job.Builder::queue),
            column("kind", TEXT, Origin.REQUEST, Job::kind, Job.Builder::kind),
            column("args", DOCUMENT, Origin.REQUEST, Job::args, Job.Builder::args),
            column("metadata", DOCUMENT, Origin.REQUEST, Job::metadata, Job.Builder::metadata),
            column("traceparent", TEXT, Origin.REQUEST, Job::traceparent, Job.Builder::traceparent),
            column("priority", INTEGER, Origin.REQUEST, Job::priority, Job.Builder::priority),
            column("status", STATUS, Origin.REQUEST, Job::status, Job.Builder::status),
            column("attempt", INTEGER, Origin.LATER, Job::attempt, Job.Builder::attempt),
            column("max_attempts", INTEGER, Origin.REQUEST, Job::maxAttempts, Job.Builder::maxAttempts),
            // null in a request means "now" on the database clock (the insert statements coalesce it)
            column("available_at", TIME, Origin.REQUEST, Job::availableAt, Job.Builder::availableAt),
            column("requested_at", TIME, Origin.INSERT_CLOCK, Job::requestedAt, Job.Builder::requestedAt),
            column("started_at", TIME, Origin.LATER, Job::startedAt, Job.Builder::startedAt),
            column("finished_at", TIME, Origin.INSERT_CLOCK, Job::finishedAt, Job.Builder::finishedAt),
            column("timeout_seconds", INTEGER, Origin.REQUEST, Job::timeoutSeconds, Job.Builder::timeoutSeconds),
            column("unique_key", TEXT, Origin.REQUEST, Job::uniqueKey, Job.Builder::uniqueKey),
            column("depends_on", IDS, Origin.REQUEST, Job::dependsOn, Job.Builder::dependsOn),
            column("cancel_requested", FLAG, Origin.LATER, Job::cancelRequested, Job.Builder::cancelRequested),
            column("progress", DOCUMENT, Origin.LATER, Job::progress, Job.Builder::progress),
            column("result", DOCUMENT, Origin.LATER, Job::result, Job.Builder::result),
            column("last_error", TEXT, Origin.REQUEST, Job::lastError, Job.Builder::lastError),
            column("locked_by", TEXT, Origin.LATER, Job::lockedBy, Job.Builder::lockedBy),
            column("locked_until", TIME, Origin.LATER, Job::lockedUntil, Job.Builder::lockedUntil));

    private static final List<Column<?>> REQUEST = ALL.stream().filter(c -> c.origin() == Origin.REQUEST).toList();

    private JobColumns() {
    }

    /** Every column, in {@link Job}'s component order. */
    static List<Column<?>> all() {
        return ALL;
    }

    /** The columns an enqueue request gives (see {@link Origin#REQUEST}). */
    static List<Column<?>> request() {
        return REQUEST;
    }

    static Column<?> named(String name) {
        for (Column<?> column : ALL) {
            if (column.name().equals(name)) {
                return column;
            }
        }
        throw new IllegalArgumentException("skiplock_jobs has no column " + name);
    }

    /**
     * A document's JSON text. An empty object (most metadata) is written without Jackson's writer,
     * which a tree's {@code toString()} sets up for each call: in a batch enqueue, half of those calls
     * were for an empty metadata.
     */
    static String documentText(JsonNode document) {
        return document.isObject() && document.isEmpty() ? "{}" : document.toString();
    }

    /** The {@code depends_on} JSON array; {@code []} (nearly every job) skips the parser. */
    static List<UUID> ids(String json) {
        if (json == null || json.equals("[]")) {
            return List.of();
        }
        List<UUID> ids = new ArrayList<>();
        Json.read(json).forEach(node -> ids.add(UUID.fromString(node.asText())));
        return List.copyOf(ids);
    }

    private static <T> Column<T> column(String name, Type<T> type, Origin origin, Function<Job, T> get,
                                        BiConsumer<Job.Builder, T> set) {
        return new Column<>(name, type, origin, get, set);
    }
}
