package dev.skiplock.internal.store;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.skiplock.JobEvent;
import dev.skiplock.internal.Json;
import dev.skiplock.spi.Driver;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Reads and appends job events ({@code events.sql}). Status and progress events are written with the
 * change itself (PostgreSQL: by the statement that makes it; SQLite: by triggers).
 */
public final class EventStore {
    /** The statements every driver's {@code events.sql} must define. */
    public static final List<String> STATEMENTS = List.of("list_events", "append_logs", "count_logs", "update_progress");

    /**
     * One log line of a running execution, fenced on its lease token. {@code line} is its place in
     * its attempt's stream (0, 1, ...): the key that stores it once when its batch is written again.
     */
    public record LogLine(HeldAttempt attempt, String stream, long line, String message) {
    }

    private final SqlRunner sql;

    public EventStore(DataSource dataSource, Driver driver) {
        this.sql = SqlRunner.forTable(dataSource, driver, "events");
    }

    public List<JobEvent> listEvents(String tenant, UUID jobId, long afterSeq, int limit) {
        return sql.query("list_events", Params.of("tenant", tenant, "job_id", jobId, "after_seq", afterSeq,
                "limit", limit), row -> new JobEvent(
                        row.getLong("seq"),
                        sql.dialect().getInstant(row, row.findColumn("ts")),
                        sql.dialect().getUuid(row, row.findColumn("job_id")),
                        row.getInt("attempt"),
                        row.getString("type"),
                        row.getString("status"),
                        row.getString("step"),
                        row.getString("stream"),
                        row.getString("message"),
                        Json.read(row.getString("data"))));
    }

    /**
     * Appends log lines of executions that still hold their lease. Lines of an execution whose
     * lease is gone (reaped, adopted by another worker, finalized) are dropped: after adoption, only
     * the adopter writes them, and none lands after the job's terminal status. A line already stored
     * (same attempt, stream and place) is skipped: a batch whose commit's answer was lost with its
     * connection is written again, and each line is stored once.
     */
    public void appendLogs(List<LogLine> lines) {
        if (!lines.isEmpty()) {
            sql.withConnection(connection -> {
                appendLogs(connection, lines);
                return null;
            });
        }
    }

    /** As {@link #appendLogs(List)}, on the caller's connection (in its transaction). */
    public void appendLogs(java.sql.Connection connection, List<LogLine> lines) {
        if (lines.isEmpty()) {
            return;
        }
        StringWriter text = new StringWriter(lines.size() * 100);
        try (JsonGenerator json = Json.MAPPER.getFactory().createGenerator(text)) {
            json.writeStartArray();
            for (LogLine line : lines) {
                json.writeStartObject();
                json.writeStringField("job_id", line.attempt().id().toString());
                json.writeStringField("token", line.attempt().token().toString());
                json.writeNumberField("attempt", line.attempt().attempt());
                json.writeStringField("stream", line.stream());
                json.writeNumberField("line", line.line());
                json.writeStringField("message", line.message());
                json.writeEndObject();
            }
            json.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        sql.query(connection, "append_logs", Params.of("lines", text.toString()), row -> 1);
    }

    /** True if {@code failure} is a statement of this store rejecting the data it carried. */
    public boolean isDataError(RuntimeException failure) {
        return sql.isDataError(failure);
    }

    /** How far one attempt's stream got: the place after its last recorded line (their count unless one is missing). */
    public long countLogs(HeldAttempt attempt, String stream) {
        return sql.query("count_logs", Params.of("job_id", attempt.id(), "attempt", attempt.attempt(), "stream", stream),
                row -> row.getLong(1)).getFirst();
    }

    /** Fenced progress write; false when the execution no longer holds the job's lease. */
    public boolean updateProgress(HeldAttempt attempt, String progressJson) {
        return sql.update("update_progress", Params.of("id", attempt.id(), "token", attempt.token(),
                "progress", progressJson)) == 1;
    }
}
