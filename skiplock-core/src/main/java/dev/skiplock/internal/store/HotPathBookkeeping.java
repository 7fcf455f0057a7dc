package dev.skiplock.internal.store;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.skiplock.internal.Json;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * What a database's status triggers do for every other change, done by the store for the hot path
 * where those triggers do not fire ({@link dev.skiplock.spi.Dialect#hotPathBookkeptByStore}): the
 * seqs of the claimed and the succeeded jobs' status events, which their rows carry (SQLite
 * migration 0018), their counts, the finishes per minute and the release of the succeeded jobs'
 * waiting dependents with their events, one statement each per claim or completion batch
 * ({@code hot_path.sql}). Always on the connection, and in the transaction, of the change. Each
 * event carries the time of its change (the row's started_at or finished_at), as a trigger's event
 * carried its statement's time.
 */
final class HotPathBookkeeping {
    private final SqlRunner sql;

    HotPathBookkeeping(SqlRunner sql) {
        this.sql = sql;
    }

    /**
     * Accounts for {@code jobs}, just claimed on {@code transaction}: queued → running, their status
     * events' seqs passed (the rows carry them).
     */
    void claimed(Connection transaction, List<ClaimedJobKey> jobs) {
        if (jobs.isEmpty()) {
            return; // a claim that found nothing changes no page: its commit writes nothing
        }
        passEventSeqs(transaction, jobs.size());
        counted(transaction, groups(jobs, ClaimedJobKey::tenant, ClaimedJobKey::queue), "queued", "running");
    }

    /**
     * Writes the {@code count} successes of {@code successesJson} ({@link CompletionParams#successes}) on
     * {@code transaction} and accounts for those applied: running → succeeded, their status events'
     * seqs passed (the rows carry them), a finish each, their dependents released (their queues
     * added to {@code releasedQueues}). Returns the leases applied.
     */
    List<HeldAttempt> completeSuccesses(Connection transaction, String successesJson, int count, Set<String> releasedQueues) {
        List<Changed> succeeded = sql.query(transaction, "complete_successes", Params.of("successes", successesJson),
                this::completed);
        if (succeeded.isEmpty()) {
            return List.of();
        }
        // Past the whole batch: an outcome's seq is its place in it, and a stale one leaves its place unused.
        passEventSeqs(transaction, count);
        String groups = groups(succeeded, Changed::tenant, Changed::queue);
        counted(transaction, groups, "running", "succeeded");
        sql.update(transaction, "count_finishes", Params.of("groups", groups));
        // One statement ends every success of the batch, so they share its time.
        List<Changed> released = sql.query(transaction, "release_dependents", Params.of("ids", ids(succeeded),
                "at", succeeded.getFirst().atMillis()), this::released);
        if (!released.isEmpty()) {
            released.forEach(job -> releasedQueues.add(job.queue()));
            sql.update(transaction, "insert_status_events", Params.of("jobs", events(released), "status", "queued"));
            counted(transaction, groups(released, Changed::tenant, Changed::queue), "waiting", "queued");
        }
        return succeeded.stream().map(job -> new HeldAttempt(job.id(), job.attempt(), job.token())).toList();
    }

    /**
     * Moves the events' counter past the {@code count} seqs the statement just run gave its jobs'
     * status events (the counter plus each job's place), before any event row takes a seq.
     */
    private void passEventSeqs(Connection transaction, int count) {
        if (sql.query(transaction, "pass_event_seqs", Params.of("count", count), row -> 1).isEmpty()) {
            // Migration 0018 writes the counter's row; without it the seqs just given were null.
            throw new IllegalStateException("pass_event_seqs: sqlite_sequence has no row for skiplock_job_events");
        }
    }

    private void counted(Connection transaction, String groups, String from, String to) {
        sql.update(transaction, "count_status_changes", Params.of("groups", groups, "from_status", from,
                "to_status", to));
    }

    /** A row of complete_successes: a lease applied. */
    private Changed completed(ResultSet row) throws SQLException {
        return changed(row, sql.dialect().getUuid(row, row.findColumn("token")));
    }

    /** A row of release_dependents. */
    private Changed released(ResultSet row) throws SQLException {
        return changed(row, null);
    }

    private Changed changed(ResultSet row, UUID token) throws SQLException {
        return new Changed(sql.dialect().getUuid(row, row.findColumn("id")), row.getInt("attempt"), token,
                row.getString("tenant"), row.getString("queue"), row.getLong("at"));
    }

    // The parameters are written as JSON trees, not records: a record's first serialization builds its
    // serializer (milliseconds), which the first release of a dependent paid inside its write transaction.

    /** {@code :groups}: how many of {@code jobs} each tenant and queue has, one {tenant, queue, jobs} per group. */
    private static <T> String groups(List<T> jobs, Function<T, String> tenant, Function<T, String> queue) {
        Map<List<String>, Integer> counts = new LinkedHashMap<>();
        for (T job : jobs) {
            counts.merge(List.of(tenant.apply(job), queue.apply(job)), 1, Integer::sum);
        }
        ArrayNode groups = Json.MAPPER.createArrayNode();
        counts.forEach((group, count) -> groups.addObject()
                .put("tenant", group.get(0)).put("queue", group.get(1)).put("jobs", count));
        return groups.toString();
    }

    /** {@code :ids}: the jobs' ids, in order. */
    private static String ids(List<Changed> jobs) {
        ArrayNode ids = Json.MAPPER.createArrayNode();
        jobs.forEach(job -> ids.add(job.id().toString()));
        return ids.toString();
    }

    /** {@code :jobs}: id, attempt and at (the time of the change) of each job, in order. */
    private static String events(List<Changed> jobs) {
        ArrayNode events = Json.MAPPER.createArrayNode();
        jobs.forEach(job -> events.addObject().put("id", job.id().toString()).put("attempt", job.attempt())
                .put("at", job.atMillis()));
        return events.toString();
    }

    /**
     * A job whose status the hot path changed, at {@code atMillis}; {@code token}: the lease of a
     * completion (null otherwise).
     */
    private record Changed(UUID id, int attempt, UUID token, String tenant, String queue, long atMillis) {
    }
}
