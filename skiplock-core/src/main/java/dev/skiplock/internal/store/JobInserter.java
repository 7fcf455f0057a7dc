package dev.skiplock.internal.store;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.RefusedJob;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The enqueue path of {@code jobs.sql}: {@code read_dependencies}, {@code insert_jobs},
 * {@code insert_dependencies} and {@code find_live_by_unique_key}; for one plain job
 * {@code insert_queued_job}, for large plain batches the COPY path ({@link BulkJobInserter}).
 * Thread-safe, like {@link JobStore}.
 */
final class JobInserter {
    /**
     * The most JSON document text (args and metadata, in characters) one statement of gathered
     * enqueues carries: 1 Mi, as the HTTP API's default body limit is 1 MiB (the other columns add
     * about 200 characters a job). Small jobs meet {@link GroupCommit#MAX_GROUP} first; a job larger
     * than this is written alone.
     */
    static final long MAX_GROUP_DOCUMENTS = 1 << 20;

    private final SqlRunner sql;
    /** Null when the driver has no bulk writer. */
    private final BulkJobInserter bulk;
    /** Enqueues in Skiplock's own transactions now between their start and their commit. */
    private final AtomicInteger ownInFlight = new AtomicInteger();
    /**
     * Lone plain enqueues in transactions of their own, gathered while one is written; null where
     * the database takes concurrent writes side by side (PostgreSQL, which also groups the WAL
     * flushes of concurrent commits itself).
     */
    private final GroupCommit<Job, Job> lonePlain;

    JobInserter(SqlRunner sql, BulkJobInserter bulk) {
        this.sql = sql;
        this.bulk = bulk;
        this.lonePlain = sql.dialect().writesOneAtATime() ? new GroupCommit<>(
                job -> sql.withConnection(own -> insertPlain(own, job, false)),
                jobs -> sql.withConnection(own -> insert(own, jobs, false)), sql::isDataError,
                JobInserter::documentsLength, MAX_GROUP_DOCUMENTS) : null;
        // A driver whose insert_queued_job misses a request column would drop that field from every
        // single plain enqueue: it fails here, at start.
        List<String> missing = JobColumns.request().stream().map(JobColumns.Column::name)
                .filter(column -> !sql.takes("insert_queued_job", column)).toList();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("insert_queued_job must take the request columns " + missing);
        }
    }

    /**
     * The length in characters of a job's JSON documents as a statement carries them (what
     * {@link #MAX_GROUP_DOCUMENTS} bounds), counted as they are written, not kept: the leader of a
     * group measures each of its jobs while the others wait.
     */
    static long documentsLength(Job job) {
        return documentLength(job.args()) + documentLength(job.metadata());
    }

    private static long documentLength(JsonNode document) {
        if (document == null) {
            return 0;
        }
        if (document.isObject() && document.isEmpty()) {
            return 2; // "{}", as JobColumns.documentText writes it
        }
        CharacterCount count = new CharacterCount();
        try (JsonGenerator json = Json.MAPPER.getFactory().createGenerator(count)) {
            Json.MAPPER.writeTree(json, document);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return count.characters;
    }

    /** Counts what is written to it, keeps nothing. */
    private static final class CharacterCount extends java.io.Writer {
        long characters;

        @Override
        public void write(char[] buffer, int offset, int length) {
            characters += length;
        }

        @Override
        public void write(String text, int offset, int length) {
            characters += length;
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    /**
     * A job with no unique key to check and no dependency to resolve, queued at once: what
     * {@code insert_queued_job} and COPY take.
     */
    static boolean isPlain(Job job) {
        return job.uniqueKey() == null && job.dependsOn().isEmpty() && job.status() == JobStatus.QUEUED;
    }

    /**
     * Inserts the jobs in one statement on {@code connection}, in the caller's transaction. Each job
     * is as requested: attempt 0, its request columns set ({@link JobColumns.Origin#REQUEST};
     * {@code availableAt} null means now), the rest unset. Returns one job per request, in order:
     * the new one, or the live job that already holds its unique key. Where statements notify
     * ({@link dev.skiplock.spi.Dialect#statementsNotify}), the commit wakes the listeners; a
     * rollback wakes nobody.
     */
    List<Job> insertJobs(Connection connection, List<Job> jobs) {
        return insert(connection, jobs, true);
    }

    /**
     * Inserts the jobs as {@link #insertJobs} does, in a transaction of its own on a pooled
     * connection, and says whether the listeners were notified at its commit.
     *
     * <p>Its statement notifies when no other enqueue of this instance is between its start and its
     * commit, and leaves the announcement to the caller otherwise (Notifier.publishQueueReady):
     * PostgreSQL commits notifying transactions one at a time (one lock, held through the WAL
     * flush), so overlapping enqueues that notify queue on each other, while an announcement after
     * the commit costs a lone enqueue's job the time of a second statement before any worker hears
     * of it (harness latency mode, 50 jobs/s: pickup p50 ~2 ms with it).
     *
     * <p>Where the database writes one transaction at a time (SQLite), a lone plain job that comes
     * while another is written waits for it and is then written with every other that waited, in
     * one statement and one commit ({@link GroupCommit}).
     */
    Inserted insertCommitted(List<Job> jobs) {
        if (lonePlain != null && jobs.size() == 1 && isPlain(jobs.getFirst())) {
            // Gathered writes do not notify: the caller announces the queue after the commit.
            return new Inserted(List.of(lonePlain.write(jobs.getFirst())), false);
        }
        boolean notify = sql.dialect().statementsNotify() && ownInFlight.incrementAndGet() == 1;
        try {
            boolean hasDependencies = jobs.stream().anyMatch(job -> !job.dependsOn().isEmpty());
            if (copyable(jobs)) {
                // COPY writes no notification: a batch this large is announced after its commit.
                return sql.inTransaction(own -> bulk.canCopy(own) ? new Inserted(bulk.insert(own, jobs), false)
                        : new Inserted(insert(own, jobs, notify), notify));
            }
            // A batch holding a unique key may take two statements more (the holder read, an insert
            // again if it ended meanwhile): in one transaction, so that a failure between them leaves
            // none of its jobs, not the ones the first statement wrote.
            boolean keyedBatch = jobs.size() > 1 && jobs.stream().anyMatch(job -> job.uniqueKey() != null);
            List<Job> stored = hasDependencies || keyedBatch ? sql.inTransaction(own -> insert(own, jobs, notify))
                    : sql.withConnection(own -> insert(own, jobs, notify));
            return new Inserted(stored, notify);
        } finally {
            if (sql.dialect().statementsNotify()) {
                ownInFlight.decrementAndGet();
            }
        }
    }

    /**
     * Takes {@code lone} and {@code batch} through the statements {@link #insertCommitted} would
     * choose for them (a lone plain job's {@code insert_queued_job}; a large plain batch's COPY
     * where the driver has one), on {@code transaction}, which the caller rolls back. Returns the
     * jobs as inserted.
     */
    List<Job> rehearse(Connection transaction, Job lone, List<Job> batch) {
        List<Job> inserted = new ArrayList<>(insert(transaction, List.of(lone), true));
        inserted.addAll(copyable(batch) && bulk.canCopy(transaction) ? bulk.insert(transaction, batch)
                : insert(transaction, batch, true));
        return inserted;
    }

    /** Whether a batch in a transaction of its own goes by COPY (where the connection takes it). */
    private boolean copyable(List<Job> jobs) {
        return bulk != null && BulkJobInserter.accepts(jobs);
    }

    private List<Job> insert(Connection connection, List<Job> jobs, boolean notify) {
        if (jobs.size() == 1 && isPlain(jobs.getFirst())) {
            return List.of(insertPlain(connection, jobs.getFirst(), notify));
        }
        boolean hasDependencies = jobs.stream().anyMatch(job -> !job.dependsOn().isEmpty());
        Map<UUID, JobStatus> dependencies = hasDependencies ? readDependencies(connection, jobs) : Map.of();
        List<Job> resolved = hasDependencies ? resolveDependencies(jobs, dependencies) : jobs;
        KeysHeld heldElsewhere = hasDependencies ? keysHeldElsewhere(connection, resolved) : KeysHeld.NONE;
        List<Job> toInsert = heldElsewhere.isEmpty() ? resolved
                : resolved.stream().filter(job -> !heldElsewhere.holds(job.id())).toList();
        Map<UUID, Job> inserted = new HashMap<>();
        Map<UUID, Job> byId = new HashMap<>();
        toInsert.forEach(job -> byId.put(job.id(), job));
        sql.query(connection, "insert_jobs", Params.of("jobs", jobsJson(inKeyOrder(toInsert)),
                "notify", notify), row -> {
            UUID id = sql.dialect().getUuid(row, row.findColumn("id"));
            Instant availableAt = sql.dialect().getInstant(row, row.findColumn("available_at"));
            Instant requestedAt = sql.dialect().getInstant(row, row.findColumn("requested_at"));
            return inserted.put(id, inserted(byId.get(id), availableAt, requestedAt));
        });
        if (hasDependencies) {
            insertDependencies(connection, toInsert, inserted.keySet(), dependencies);
        }
        List<Job> result = new ArrayList<>(jobs.size());
        Map<UUID, Job> answered = new HashMap<>();
        for (Job job : resolved) {
            UUID earlier = heldElsewhere.byEarlier().get(job.id());
            Job stored = heldElsewhere.byLive().containsKey(job.id()) ? heldElsewhere.byLive().get(job.id())
                    : earlier != null ? answered.get(earlier)
                    : inserted.get(job.id());
            Job answer = stored != null ? stored : findLiveByUniqueKey(connection, job);
            answered.put(job.id(), answer);
            result.add(answer);
        }
        return result;
    }

    /**
     * The jobs in the order the insert takes their unique keys: those with a key sorted by tenant,
     * then key, in the places the keyed jobs had; the others where they were. The sort is stable,
     * so of two jobs with one key the first still takes it. Two transactions inserting the same
     * keys in different orders each waited for a key the other held, until PostgreSQL failed one of
     * them as a deadlock.
     */
    static List<Job> inKeyOrder(List<Job> jobs) {
        List<Integer> places = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            if (jobs.get(i).uniqueKey() != null) {
                places.add(i);
            }
        }
        if (places.size() < 2) {
            return jobs;
        }
        List<Job> keyed = places.stream().map(jobs::get)
                .sorted(Comparator.comparing(Job::tenant).thenComparing(Job::uniqueKey)).toList();
        List<Job> ordered = new ArrayList<>(jobs);
        for (int k = 0; k < places.size(); k++) {
            ordered.set(places.get(k), keyed.get(k));
        }
        return ordered;
    }

    /** Born-failed jobs by id: to their key's live holder in the database, or to the earlier job of the batch holding it. */
    private record KeysHeld(Map<UUID, Job> byLive, Map<UUID, UUID> byEarlier) {
        static final KeysHeld NONE = new KeysHeld(Map.of(), Map.of());

        boolean isEmpty() {
            return byLive.isEmpty() && byEarlier.isEmpty();
        }

        boolean holds(UUID job) {
            return byLive.containsKey(job) || byEarlier.containsKey(job);
        }
    }

    /**
     * The jobs born failed (a dependency had failed) whose unique key a live job holds: mapped to that
     * job (in the database) or to the id of the job earlier in this batch that takes the key. A key
     * dedupes against live jobs, and a failed job holds none: its insert met no conflict, and a second
     * job was made beside the live one.
     */
    private KeysHeld keysHeldElsewhere(Connection connection, List<Job> resolved) {
        KeysHeld held = new KeysHeld(new HashMap<>(), new HashMap<>());
        Map<List<String>, UUID> takenInBatch = new HashMap<>();
        for (Job job : resolved) {
            if (job.uniqueKey() == null) {
                continue;
            }
            List<String> key = List.of(job.tenant(), job.uniqueKey());
            if (job.status() != JobStatus.FAILED) {
                takenInBatch.putIfAbsent(key, job.id());
                continue;
            }
            UUID earlier = takenInBatch.get(key);
            if (earlier != null) {
                held.byEarlier().put(job.id(), earlier);
                continue;
            }
            List<Job> live = sql.query(connection, "find_live_by_unique_key",
                    Params.of("tenant", job.tenant(), "unique_key", job.uniqueKey()), new JobRows(sql.dialect()));
            if (!live.isEmpty()) {
                held.byLive().put(job.id(), live.getFirst());
            }
        }
        return held;
    }

    /**
     * Decides each job's first status from its dependencies: all succeeded → queued; one failed,
     * timed out or was cancelled → failed naming it; otherwise waiting. An unknown dependency (or
     * another tenant's) is an error. Read without a lock (see {@code read_dependencies}): on
     * PostgreSQL one that finishes before this enqueue commits is caught by
     * {@code settle_waiting_jobs}; on SQLite it cannot finish in between unseen.
     */
    private static List<Job> resolveDependencies(List<Job> jobs, Map<UUID, JobStatus> statuses) {
        List<Job> resolved = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            Job job = jobs.get(i);
            JobStatus status = JobStatus.QUEUED;
            String lastError = null;
            for (UUID dependency : job.dependsOn()) {
                JobStatus current = statuses.get(dependency);
                if (current == null) {
                    throw new RefusedJob(i, "dependsOn: job " + dependency + " not found");
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
            resolved.add(job.toBuilder().status(status).lastError(lastError).build());
        }
        return resolved;
    }

    /** The status of each job {@code jobs} depend on, as this enqueue reads it (see {@link #resolveDependencies}). */
    private Map<UUID, JobStatus> readDependencies(Connection connection, List<Job> jobs) {
        Map<String, Set<UUID>> idsByTenant = new HashMap<>();
        jobs.forEach(job -> idsByTenant.computeIfAbsent(job.tenant(), key -> new HashSet<>()).addAll(job.dependsOn()));
        Map<UUID, JobStatus> statuses = new HashMap<>();
        idsByTenant.forEach((tenant, ids) -> sql.query(connection, "read_dependencies",
                Params.of("tenant", tenant, "ids", Json.write(ids.stream().map(UUID::toString).toList())), row ->
                        statuses.put(sql.dialect().getUuid(row, row.findColumn("id")),
                                JobStatus.fromWireName(row.getString("status")))));
        return statuses;
    }

    /**
     * The dependency rows of the jobs inserted, each with the outcome this enqueue read when its
     * dependency had ended: a dependency deleted before this transaction commits cannot record its
     * outcome on a row it does not see, and would read 'deleted' (migration 0030).
     */
    private void insertDependencies(Connection connection, List<Job> jobs, Set<UUID> inserted,
            Map<UUID, JobStatus> statuses) {
        List<Map<String, String>> edges = new ArrayList<>();
        for (Job job : jobs) {
            if (inserted.contains(job.id())) {
                for (UUID dependency : job.dependsOn()) {
                    Map<String, String> edge = new HashMap<>(Map.of("job_id", job.id().toString(),
                            "depends_on", dependency.toString()));
                    JobStatus read = statuses.get(dependency);
                    if (read.isTerminal()) {
                        edge.put("outcome", read.wireName());
                    }
                    edges.add(edge);
                }
            }
        }
        if (!edges.isEmpty()) {
            sql.update(connection, "insert_dependencies", Params.of("edges", Json.write(edges)));
        }
    }

    /**
     * One plain job ({@link #isPlain}) with {@code insert_queued_job}: its columns as parameters, in
     * the forms of {@link #jobsJson} (a document as its text, a time as epoch milliseconds).
     */
    private Job insertPlain(Connection connection, Job job, boolean notify) {
        Map<String, Object> params = new HashMap<>();
        for (JobColumns.Column<?> column : JobColumns.request()) {
            Object value = column.copyValue(job);
            params.put(column.name(), value instanceof Instant time ? time.toEpochMilli() : value);
        }
        params.put("notify", notify);
        List<Job> stored = sql.query(connection, "insert_queued_job", params, row -> inserted(job,
                sql.dialect().getInstant(row, row.findColumn("available_at")),
                sql.dialect().getInstant(row, row.findColumn("requested_at"))));
        if (stored.size() != 1) {
            throw new IllegalStateException("insert_queued_job returned " + stored.size() + " rows for one job");
        }
        return stored.getFirst();
    }

    /** The job as the insert wrote it: everything but the database-clock times came from the request. */
    static Job inserted(Job requested, Instant availableAt, Instant requestedAt) {
        return requested.toBuilder().availableAt(availableAt).requestedAt(requestedAt)
                .finishedAt(requested.status() == JobStatus.FAILED ? requestedAt : null).build();
    }

    /**
     * The live job holding {@code job}'s key, or {@code job} inserted again when the holder ended
     * since the insert. That insert takes its key after the batch's others, out of key order: a
     * transaction inserting the same keys meanwhile can deadlock with it (PostgreSQL then fails one).
     */
    private Job findLiveByUniqueKey(Connection connection, Job job) {
        List<Job> live = sql.query(connection, "find_live_by_unique_key",
                Params.of("tenant", job.tenant(), "unique_key", job.uniqueKey()), new JobRows(sql.dialect()));
        if (live.isEmpty()) {
            // The holder finished between our insert and this read; the key is free again.
            return insertJobs(connection, List.of(job)).getFirst();
        }
        return live.getFirst();
    }

    /**
     * The request columns of every job ({@link JobColumns#request()}), keyed by column name, streamed
     * straight to text (no JSON tree per job: it showed in enqueue profiles).
     */
    private static String jobsJson(List<Job> jobs) {
        StringWriter text = new StringWriter(jobs.size() * 200);
        try (JsonGenerator json = Json.MAPPER.getFactory().createGenerator(text)) {
            json.writeStartArray();
            for (Job job : jobs) {
                json.writeStartObject();
                for (JobColumns.Column<?> column : JobColumns.request()) {
                    column.writeJson(json, job);
                }
                json.writeEndObject();
            }
            json.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }
}
