package dev.skiplock.internal.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.internal.Json;
import dev.skiplock.spi.Driver;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A job's checkpoints ({@code steps.sql}): finished steps with their output, durable waits with
 * their end, and what a handler reads of the jobs it depends on. Every write is fenced on the
 * execution's lease token.
 */
public final class StepStore {
    public static final List<String> STATEMENTS = List.of("list_steps", "record_step", "lease_held",
            "append_step_event", "list_parent_results");

    /** What a checkpoint is: a finished step, or a durable wait that ends at its {@code wake_at}. */
    public enum Kind {
        STEP, SLEEP, SIGNAL;

        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One recorded checkpoint.
     *
     * @param output     a step's output (JSON, {@code null} for waits)
     * @param waitMillis a wait's time left when the checkpoints were read, by the database's clock (0 or
     *                   less: it is over); {@code null} for steps
     */
    public record Checkpoint(String name, Kind kind, JsonNode output, Long waitMillis) {
    }

    private final SqlRunner sql;

    public StepStore(DataSource dataSource, Driver driver) {
        this.sql = SqlRunner.forTable(dataSource, driver, "steps");
    }

    /** The checkpoints of one job by name. */
    public Map<String, Checkpoint> listSteps(UUID jobId) {
        Map<String, Checkpoint> steps = new LinkedHashMap<>();
        sql.query("list_steps", Params.of("job_id", jobId), row -> {
            String output = row.getString("output");
            return new Checkpoint(row.getString("name"), Kind.valueOf(row.getString("kind").toUpperCase(java.util.Locale.ROOT)),
                    output == null ? null : Json.read(output), row.getObject("wait_ms") == null ? null : row.getLong("wait_ms"));
        }).forEach(step -> steps.put(step.name(), step));
        return steps;
    }

    /**
     * What a write of a checkpoint came to.
     *
     * @param storedOutput a written step's output as the database stored it (PostgreSQL's jsonb
     *                     orders an object's keys its own way), which every later execution reads
     */
    public record Recorded(Outcome outcome, String storedOutput) {
        public static final Recorded FOUND = new Recorded(Outcome.FOUND, null);
        public static final Recorded FENCED = new Recorded(Outcome.FENCED, null);

        public static Recorded written(String storedOutput) {
            return new Recorded(Outcome.WRITTEN, storedOutput);
        }
    }

    /** Whether a checkpoint was written. */
    public enum Outcome {
        /** written, with its step event */
        WRITTEN,
        /** a checkpoint of that name was there already, and {@code attempt} still holds the job */
        FOUND,
        /** nothing written: {@code attempt} no longer holds the job */
        FENCED
    }

    /**
     * Records a checkpoint and its step event in one transaction, fenced on the lease. A write that
     * records nothing says why: a stale execution must not take the checkpoint another execution
     * recorded under that name for its own.
     *
     * @param outputJson  a step's output as JSON text; {@code null} for a wait
     * @param waitMillis  a wait's length (its {@code wake_at} is the database's now plus this); {@code null} for a step
     * @param eventStatus the step event's status ({@code succeeded} for a step, {@code waiting} for a wait)
     */
    public Recorded recordStep(HeldAttempt attempt, String name, Kind kind, String outputJson, Long waitMillis,
            String eventStatus) {
        return sql.inTransaction(connection -> {
            List<Recorded> written = sql.query(connection, "record_step", Params.of("job_id", attempt.id(),
                    "token", attempt.token(), "name", name, "kind", kind.wireName(), "output", outputJson,
                    "wait_ms", waitMillis), row -> Recorded.written(row.getString("output")));
            if (!written.isEmpty()) {
                sql.query(connection, "append_step_event", eventParams(attempt, name, eventStatus, null), row -> 1);
                return written.getFirst();
            }
            boolean held = !sql.query(connection, "lease_held", Params.of("job_id", attempt.id(), "token", attempt.token()),
                    row -> 1).isEmpty();
            return held ? Recorded.FOUND : Recorded.FENCED;
        });
    }

    /** A step event with no checkpoint (started, failed); dropped when the lease is gone. */
    public void appendStepEvent(HeldAttempt attempt, String name, String status, String message) {
        sql.query("append_step_event", eventParams(attempt, name, status, message), row -> 1);
    }

    /** The results of the jobs {@code jobId} depends on, by id (a deleted one is missing). */
    public Map<UUID, JsonNode> listParentResults(UUID jobId) {
        Map<UUID, JsonNode> results = new LinkedHashMap<>();
        sql.query("list_parent_results", Params.of("job_id", jobId), row -> {
            String result = row.getString("result");
            results.put(sql.dialect().getUuid(row, row.findColumn("id")), result == null ? null : Json.read(result));
            return 1;
        });
        return results;
    }

    private static Map<String, Object> eventParams(HeldAttempt attempt, String name, String status, String message) {
        return Params.of("job_id", attempt.id(), "token", attempt.token(), "name", name, "step_status", status,
                "message", message);
    }
}
