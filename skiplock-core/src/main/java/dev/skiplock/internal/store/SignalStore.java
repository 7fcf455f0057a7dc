package dev.skiplock.internal.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobStatus;
import dev.skiplock.internal.Json;
import dev.skiplock.spi.Driver;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/** Signals sent to jobs ({@code signals.sql}): delivered once, kept until the job is deleted. */
public final class SignalStore {
    public static final List<String> STATEMENTS = List.of("lock_signal_target", "insert_signal", "append_signal_event",
            "read_signal", "wake_for_signal");

    /**
     * What a delivery found.
     *
     * @param status      the job's status when the signal came
     * @param delivered   false when a signal of that name had been delivered before (the first one wins) or the job was terminal
     * @param wokenQueues the queue of the job if the signal ended its wait (its workers should look now)
     */
    public record Delivery(JobStatus status, boolean delivered, List<String> wokenQueues) {
    }

    private record Target(JobStatus status, int attempt) {
    }

    private final SqlRunner sql;

    public SignalStore(DataSource dataSource, Driver driver) {
        this.sql = SqlRunner.forTable(dataSource, driver, "signals");
    }

    /**
     * Delivers signal {@code name} to one of {@code tenant}'s jobs that is not terminal, in one
     * transaction: the signal, its step event and, if the job waits for it, the end of the wait.
     * Empty when the tenant has no such job.
     */
    public Optional<Delivery> insertSignal(String tenant, UUID jobId, String name, String payloadJson) {
        return sql.inTransaction(connection -> {
            List<Target> targets = sql.query(connection, "lock_signal_target", Params.of("job_id", jobId, "tenant", tenant),
                    row -> new Target(JobStatus.fromWireName(row.getString("status")), row.getInt("attempt")));
            if (targets.isEmpty()) {
                return Optional.empty();
            }
            Target target = targets.getFirst();
            if (target.status().isTerminal()) {
                return Optional.of(new Delivery(target.status(), false, List.of()));
            }
            int inserted = sql.update(connection, "insert_signal", Params.of("job_id", jobId, "name", name,
                    "payload", payloadJson));
            if (inserted == 0) {
                return Optional.of(new Delivery(target.status(), false, List.of()));
            }
            sql.query(connection, "append_signal_event", Params.of("job_id", jobId, "attempt", target.attempt(),
                    "name", name), row -> 1);
            return Optional.of(new Delivery(target.status(), true, wakeForSignal(connection, jobId, name)));
        });
    }

    /** The payload of signal {@code name} if it was delivered to the job. */
    public Optional<JsonNode> readSignal(UUID jobId, String name) {
        return sql.query("read_signal", Params.of("job_id", jobId, "name", name), row -> Json.read(row.getString("payload")))
                .stream().findFirst();
    }

    /**
     * Ends the wait of a queued job for signal {@code name} if that signal was delivered (and the
     * wait is not over), in the caller's transaction. Returns the job's queue when it was woken.
     */
    public List<String> wakeForSignal(java.sql.Connection connection, UUID jobId, String name) {
        return sql.query(connection, "wake_for_signal", Params.of("job_id", jobId, "name", name),
                row -> row.getString("queue"));
    }
}
