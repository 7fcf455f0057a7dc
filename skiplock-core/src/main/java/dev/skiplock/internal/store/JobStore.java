package dev.skiplock.internal.store;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.skiplock.Job;
import dev.skiplock.JobPage;
import dev.skiplock.JobQuery;
import dev.skiplock.JobStatus;
import dev.skiplock.QueueCount;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.sql.SqlFile;
import dev.skiplock.spi.Driver;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * Every read and write of {@code skiplock_jobs}, one method per named statement of {@code jobs.sql}.
 * Tenant-facing calls take the tenant; worker calls are fenced by worker id and attempt instead.
 * Thread-safe: each call borrows a connection from the pool (or uses the caller's).
 */
public final class JobStore {
    /** The statements every driver's {@code jobs.sql} must define (checked by a test per driver). */
    public static final List<String> STATEMENTS = List.of("insert_jobs", "find_live_by_unique_key", "get_job",
            "list_jobs", "claim_jobs", "adopt_orphans", "heartbeat", "complete_jobs", "release_jobs",
            "reap_expired_leases", "cancel_job", "retry_job", "prune_finished", "count_jobs", "delete_job", "lock_dependencies", "insert_dependencies");
    /** What {@code bulk.sql} defines for a driver with a {@link dev.skiplock.spi.BulkCopy} (checked by the same test). */
    public static final List<String> BULK_STATEMENTS = List.of("bulk_clock", "copy_jobs", "copy_events");

    private final SqlRunner sql;
    /** Null when the driver has no bulk writer. */
    private final BulkJobInserter bulk;

    public JobStore(DataSource dataSource, Driver driver) {
        this.sql = SqlRunner.forTable(dataSource, driver, "jobs");
        this.bulk = driver.bulkCopy()
                .map(copy -> new BulkJobInserter(SqlRunner.forTable(dataSource, driver, "bulk"), copy))
                .orElse(null);
    }

    /**
     * Inserts the jobs in one statement on {@code connection} (the caller's transaction), or on a pooled
     * connection when it is {@code null}. Returns one job per request, in order: the new one, or the
     * live job that already holds its unique key.
     */
    public List<Job> insert(Connection connection, List<NewJob> jobs) {
        boolean hasDependencies = jobs.stream().anyMatch(job -> !job.dependsOn().isEmpty());
        if (connection == null) {
            if (bulk != null && BulkJobInserter.accepts(jobs)) {
                return inTransaction(own -> bulk.canCopy(own) ? bulk.insert(own, jobs) : insert(own, jobs));
            }
            return hasDependencies ? inTransaction(own -> insert(own, jobs)) : withConnection(own -> insert(own, jobs));
        }
        List<NewJob> resolved = hasDependencies ? resolveDependencies(connection, jobs) : jobs;
        Map<UUID, Job> inserted = new HashMap<>();
        Map<UUID, NewJob> byId = new HashMap<>();
        resolved.forEach(job -> byId.put(job.id(), job));
        sql.query(connection, "insert_jobs", Params.of("jobs", jobsJson(resolved)), row -> {
            UUID id = sql.dialect().getUuid(row, row.findColumn("id"));
            Instant availableAt = sql.dialect().getInstant(row, row.findColumn("available_at"));
            Instant requestedAt = sql.dialect().getInstant(row, row.findColumn("requested_at"));
            return inserted.put(id, inserted(byId.get(id), availableAt, requestedAt));
        });
        if (hasDependencies) {
            insertDependencies(connection, resolved, inserted.keySet());
        }
        List<Job> result = new ArrayList<>(jobs.size());
        for (NewJob job : resolved) {
            Job stored = inserted.get(job.id());
            result.add(stored != null ? stored : findLiveByUniqueKey(connection, job));
        }
        return result;
    }

    /**
     * Decides each job's first status from its dependencies, locked until the enqueue commits (so
     * none can finish unseen): all succeeded → queued; one failed, timed out or was cancelled →
     * failed naming it; otherwise waiting. An unknown dependency (or another tenant's) is an error.
     */
    private List<NewJob> resolveDependencies(Connection connection, List<NewJob> jobs) {
        Map<String, Set<UUID>> idsByTenant = new HashMap<>();
        jobs.forEach(job -> idsByTenant.computeIfAbsent(job.tenant(), key -> new HashSet<>()).addAll(job.dependsOn()));
        Map<UUID, JobStatus> statuses = new HashMap<>();
        idsByTenant.forEach((tenant, ids) -> sql.query(connection, "lock_dependencies",
                Params.of("tenant", tenant, "ids", Json.write(ids.stream().map(UUID::toString).toList())), row ->
                        statuses.put(sql.dialect().getUuid(row, row.findColumn("id")),
                                JobStatus.fromWireName(row.getString("status")))));
        List<NewJob> resolved = new ArrayList<>(jobs.size());
        for (NewJob job : jobs) {
            JobStatus status = JobStatus.QUEUED;
            String lastError = null;
            for (UUID dependency : job.dependsOn()) {
                JobStatus current = statuses.get(dependency);
                if (current == null) {
                    throw new IllegalArgumentException("dependsOn: job " + dependency + " not found");
                }
                if (current.isTerminal() && current != JobStatus.SUCCEEDED) {
                    status = JobStatus.FAILED;
                    lastError = "dependency " + dependency + " " + current.wireName();
                    break;
                }
                if (current != JobStatus.SUCCEEDED) {
                    status = JobStatus.WAITING;
                }
            }
            resolved.add(job.withStatus(status, lastError));
        }
        return resolved;
    }

    private void insertDependencies(Connection connection, List<NewJob> jobs, Set<UUID> inserted) {
        List<Map<String, String>> edges = new ArrayList<>();
        for (NewJob job : jobs) {
            if (inserted.contains(job.id())) {
                job.dependsOn().forEach(dependency -> edges.add(Map.of("job_id", job.id().toString(),
                        "depends_on", dependency.toString())));
            }
        }
        if (!edges.isEmpty()) {
            sql.update(connection, "insert_dependencies", Params.of("edges", Json.write(edges)));
        }
    }

    private <T> T inTransaction(Function<Connection, T> work) {
        return sql.inTransaction(work);
    }

    /** The job as the insert wrote it: everything but the database-clock times came from the request. */
    static Job inserted(NewJob job, Instant availableAt, Instant requestedAt) {
        Instant finishedAt = job.status() == JobStatus.FAILED ? requestedAt : null;
        return new Job(job.id(), job.tenant(), job.queue(), job.kind(), job.args(), job.metadata(), job.priority(),
                job.status(), 0, job.maxAttempts(), availableAt, requestedAt, null, finishedAt, job.timeoutSeconds(),
                job.uniqueKey(), job.dependsOn(), false, null, null, job.lastError(), null, null);
    }

    private Job findLiveByUniqueKey(Connection connection, NewJob job) {
        List<Job> live = sql.query(connection, "find_live_by_unique_key",
                Params.of("tenant", job.tenant(), "unique_key", job.uniqueKey()), new JobRows(sql.dialect()));
        if (live.isEmpty()) {
            // The holder finished between our insert and this read; the key is free again.
            return insert(connection, List.of(job)).getFirst();
        }
        return live.getFirst();
    }

    /** Streams the batch straight to text (no JSON tree per job: it showed in enqueue profiles). */
    private static String jobsJson(List<NewJob> jobs) {
        StringWriter text = new StringWriter(jobs.size() * 200);
        try (JsonGenerator json = Json.MAPPER.getFactory().createGenerator(text)) {
            json.writeStartArray();
            for (NewJob job : jobs) {
                json.writeStartObject();
                json.writeStringField("id", job.id().toString());
                json.writeStringField("tenant", job.tenant());
                json.writeStringField("queue", job.queue());
                json.writeStringField("kind", job.kind());
                json.writeFieldName("args");
                json.writeTree(job.args());
                json.writeFieldName("metadata");
                json.writeTree(job.metadata());
                json.writeNumberField("priority", job.priority());
                json.writeNumberField("max_attempts", job.maxAttempts());
                if (job.runAt() != null) {
                    json.writeNumberField("run_at_ms", job.runAt().toEpochMilli());
                }
                if (job.timeoutSeconds() != null) {
                    json.writeNumberField("timeout_seconds", job.timeoutSeconds());
                }
                json.writeStringField("unique_key", job.uniqueKey());
                json.writeStringField("status", job.status().wireName());
                json.writeStringField("last_error", job.lastError());
                json.writeArrayFieldStart("depends_on");
                for (UUID dependency : job.dependsOn()) {
                    json.writeString(dependency.toString());
                }
                json.writeEndArray();
                json.writeEndObject();
            }
            json.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    public Optional<Job> get(String tenant, UUID id) {
        return withConnection(connection -> sql.query(connection, "get_job", Params.of("tenant", tenant, "id", id),
                new JobRows(sql.dialect()))).stream().findFirst();
    }

    public JobPage list(String tenant, JobQuery query) {
        List<Job> jobs = withConnection(connection -> sql.query(connection, "list_jobs", Params.of(
                "tenant", tenant,
                "status", query.status() == null ? null : query.status().wireName(),
                "queue", query.queue(),
                "kind", query.kind(),
                "cursor", query.cursor(),
                "limit", query.limit()), new JobRows(sql.dialect())));
        UUID next = jobs.size() == query.limit() ? jobs.getLast().id() : null;
        return new JobPage(jobs, next);
    }

    public List<Job> claim(String queue, String worker, long leaseMillis, int limit) {
        return withConnection(connection -> sql.query(connection, "claim_jobs", Params.of(
                "queue", queue, "worker", worker, "lease_ms", leaseMillis, "limit", limit), new JobRows(sql.dialect())));
    }

    public List<Job> adoptOrphans(String queue, String worker, long leaseMillis, int limit) {
        return withConnection(connection -> sql.query(connection, "adopt_orphans", Params.of(
                "queue", queue, "worker", worker, "lease_ms", leaseMillis, "limit", limit), new JobRows(sql.dialect())));
    }

    /** Extends the leases still held; the answer omits attempts whose lease is gone. */
    public List<HeartbeatAck> heartbeat(String worker, long leaseMillis, Collection<HeldAttempt> held) {
        if (held.isEmpty()) {
            return List.of();
        }
        var params = Params.of("worker", worker, "lease_ms", leaseMillis, "held", heldJson(held));
        return withConnection(connection -> sql.query(connection, "heartbeat", params, row -> new HeartbeatAck(
                new HeldAttempt(sql.dialect().getUuid(row, row.findColumn("id")), row.getInt("attempt")),
                row.getBoolean("cancel_requested"))));
    }

    /** Writes the completions fenced; returns the attempts applied (the rest were stale). */
    public Set<HeldAttempt> complete(String worker, Collection<Completion> completions) {
        var params = Params.of("worker", worker, "completions", completionsJson(completions));
        return new HashSet<>(withConnection(connection -> sql.query(connection, "complete_jobs", params,
                row -> new HeldAttempt(sql.dialect().getUuid(row, row.findColumn("id")), row.getInt("attempt")))));
    }

    /** Streams the batch straight to text: on the hot path, a JSON tree per outcome cost more than the write. */
    private static String completionsJson(Collection<Completion> completions) {
        StringWriter text = new StringWriter(completions.size() * 120);
        try (JsonGenerator json = Json.MAPPER.getFactory().createGenerator(text)) {
            json.writeStartArray();
            for (Completion completion : completions) {
                json.writeStartObject();
                json.writeStringField("id", completion.attempt().id().toString());
                json.writeNumberField("attempt", completion.attempt().attempt());
                json.writeStringField("status", completion.status().wireName());
                json.writeNumberField("delay_ms", completion.delayMillis());
                json.writeFieldName("result");
                if (completion.result() == null) {
                    json.writeNull();
                } else {
                    json.writeTree(completion.result());
                }
                json.writeStringField("error", completion.error());
                json.writeNumberField("extra_attempts", completion.extraAttempts());
                json.writeEndObject();
            }
            json.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    /** Gives leases back at shutdown; returns how many jobs were released. */
    public int release(String worker, Collection<HeldAttempt> held) {
        if (held.isEmpty()) {
            return 0;
        }
        var params = Params.of("worker", worker, "held", heldJson(held));
        return withConnection(connection -> sql.query(connection, "release_jobs", params,
                row -> row.getString("id"))).size();
    }

    public int reapExpiredLeases() {
        return withConnection(connection -> sql.update(connection, "reap_expired_leases", Params.of()));
    }

    /** Cancels or flags the job; empty when it does not exist or is already terminal. */
    public Optional<Job> cancel(String tenant, UUID id) {
        return withConnection(connection -> sql.query(connection, "cancel_job",
                Params.of("tenant", tenant, "id", id), new JobRows(sql.dialect()))).stream().findFirst();
    }

    /** Deletes a terminal job and its events; false when it does not exist or is not terminal. */
    public boolean delete(String tenant, UUID id) {
        return withConnection(connection -> sql.update(connection, "delete_job",
                Params.of("tenant", tenant, "id", id))) == 1;
    }

    /** Re-queues a terminal job; empty when it does not exist or is not terminal. */
    public Optional<Job> retry(String tenant, UUID id) {
        return withConnection(connection -> sql.query(connection, "retry_job",
                Params.of("tenant", tenant, "id", id), new JobRows(sql.dialect()))).stream().findFirst();
    }

    public List<QueueCount> count(String tenant) {
        return withConnection(connection -> sql.query(connection, "count_jobs", Params.of("tenant", tenant),
                row -> new QueueCount(row.getString("queue"), JobStatus.fromWireName(row.getString("status")),
                        row.getLong("jobs"))));
    }

    /** Deletes up to {@code limit} jobs finished more than {@code ageMillis} ago; returns how many. */
    public int pruneFinished(long ageMillis, int limit) {
        return withConnection(connection -> sql.update(connection, "prune_finished",
                Params.of("age_ms", ageMillis, "limit", limit)));
    }

    private static String heldJson(Collection<HeldAttempt> held) {
        ArrayNode batch = Json.MAPPER.createArrayNode();
        for (HeldAttempt attempt : held) {
            batch.addObject().put("id", attempt.id().toString()).put("attempt", attempt.attempt());
        }
        return batch.toString();
    }

    private <T> T withConnection(Function<Connection, T> work) {
        return sql.withConnection(work);
    }
}
