package dev.skiplock.internal.store;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.skiplock.Job;
import dev.skiplock.JobPage;
import dev.skiplock.JobQuery;
import dev.skiplock.JobStatus;
import dev.skiplock.QueueActivity;
import dev.skiplock.QueueCount;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.Uuid7;
import dev.skiplock.spi.Driver;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.function.IntSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every read and write of {@code skiplock_jobs}, one method per named statement of {@code jobs.sql}.
 * Tenant-facing calls take the tenant; worker calls are fenced by the lease token instead.
 * Thread-safe: each call borrows a connection from the pool (or uses the caller's).
 */
public final class JobStore {
    private static final Logger LOG = LoggerFactory.getLogger(JobStore.class);
    /** The statements every driver's {@code jobs.sql} must define (checked by a test per driver). */
    public static final List<String> STATEMENTS = List.of("insert_jobs", "insert_queued_job",
            "find_live_by_unique_key", "get_job",
            "list_newest_jobs", "list_jobs", "get_job_tenant", "list_newest_jobs_all_tenants", "list_jobs_all_tenants",
            "claim_jobs", "first_claimable", "adopt_orphans", "heartbeat", "complete_jobs", "release_jobs",
            "unclaim_jobs", "completed_by_lease", "execution_running", "reap_expired_leases", "cancel_job", "retry_job", "failed_dependency", "prune_finished",
            "count_jobs", "count_jobs_all_tenants", "compact_job_counts", "compact_job_throughput", "queue_activity", "oldest_queued", "oldest_queued_by_priority", "delete_job", "read_dependencies", "insert_dependencies",
            "take_maintenance_turn", "give_back_maintenance_turn", "find_settleable_jobs", "settle_waiting_jobs");
    /**
     * What {@code jobs.sql} defines besides {@link #STATEMENTS} for a driver whose dialect
     * {@link dev.skiplock.spi.Dialect#readsClaimedJobsAfterCommit reads the claimed jobs after the commit}
     * (checked by the same test).
     */
    public static final List<String> CLAIM_READ_STATEMENTS = List.of("read_claimed_jobs");
    /** The settle's turn in skiplock_maintenance_turns. */
    static final String SETTLE_TURN = "settle_waiting_jobs";
    /** The most jobs one search finds: find_settleable_jobs' LIMIT. */
    static final int SETTLE_BATCH = 1_000;
    /** Searches a settle makes at most, while each finds a full batch: up to 10,000 jobs settled a turn. */
    static final int SETTLE_ROUNDS = 10;
    /** The most expired leases one {@code reap_expired_leases} clears, its {@code :limit} (SQLite's takes every one). */
    static final int REAP_LIMIT = 1_000;
    /** What {@code bulk.sql} defines for a driver with a {@link dev.skiplock.spi.BulkCopy} (checked by the same test). */
    public static final List<String> BULK_STATEMENTS = List.of("bulk_clock", "copy_jobs");
    /** What {@code hot_path.sql} defines for a driver whose hot path the store accounts for (checked by the same test). */
    public static final List<String> HOT_PATH_STATEMENTS = List.of("pass_event_seqs", "complete_successes",
            "insert_status_events", "count_status_changes", "count_finishes", "release_dependents");

    /**
     * How far ahead of this host's clock another host's clock may run without delaying retention:
     * the walk over the history reads a minute of jobs enqueued after the cutoff too.
     */
    static final Duration ENQUEUE_CLOCK_MARGIN = Duration.ofMinutes(1);

    private final SqlRunner sql;
    private final JobInserter inserter;
    private final SignalStore signals;
    /** Null unless the driver's hot path fires no status trigger ({@link dev.skiplock.spi.Dialect#hotPathBookkeptByStore}). */
    private final HotPathBookkeeping hotPath;
    /** {@link dev.skiplock.spi.Dialect#readsClaimedJobsAfterCommit}: claim_jobs returns keys, read_claimed_jobs rows. */
    private final boolean readsClaimedJobsAfterCommit;

    public JobStore(DataSource dataSource, Driver driver) {
        this.sql = SqlRunner.forTable(dataSource, driver, "jobs");
        this.hotPath = driver.dialect().hotPathBookkeptByStore()
                ? new HotPathBookkeeping(SqlRunner.forTable(dataSource, driver, "hot_path"))
                : null;
        this.readsClaimedJobsAfterCommit = driver.dialect().readsClaimedJobsAfterCommit();
        this.signals = new SignalStore(dataSource, driver);
        BulkJobInserter bulk = driver.bulkCopy()
                .map(copy -> new BulkJobInserter(SqlRunner.forTable(dataSource, driver, "bulk"), copy))
                .orElse(null);
        this.inserter = new JobInserter(sql, bulk);
    }

    /** Inserts the jobs on {@code connection}, in the caller's transaction: see {@link JobInserter#insertJobs}. */
    public List<Job> insertJobs(Connection connection, List<Job> jobs) {
        return inserter.insertJobs(connection, jobs);
    }

    /** Inserts the jobs in a transaction of its own: see {@link JobInserter#insertCommitted}. */
    public Inserted insertJobs(List<Job> jobs) {
        return inserter.insertCommitted(jobs);
    }

    /**
     * The enqueue path's rehearsal (an instance's build, issue #12): {@code lone} inserted as a lone
     * enqueue is, {@code batch} as a batch of its size is, in a transaction rolled back at once.
     * Nothing stays and nothing is announced; what remains is warmth: this JVM has run the code that
     * writes those statements and reads their answers, and the connection's backend has planned
     * them. Returns the jobs as the statements answered, before the rollback.
     */
    public List<Job> rehearseEnqueue(Job lone, List<Job> batch) {
        return withConnection(connection -> sql.rolledBack(connection,
                transaction -> inserter.rehearse(transaction, lone, batch)));
    }

    public Optional<Job> getJob(String tenant, UUID id) {
        return withConnection(connection -> sql.query(connection, "get_job", Params.of("tenant", tenant, "id", id),
                new JobRows(sql.dialect()))).stream().findFirst();
    }

    public JobPage listJobs(String tenant, JobQuery query) {
        Map<String, Object> params = listParams(query);
        params.put("tenant", tenant);
        return page("list_newest_jobs", "list_jobs", params, query);
    }

    /** The tenant owning job {@code id} (an admin's view across tenants); empty when there is no such job. */
    public Optional<String> getJobTenant(UUID id) {
        return withConnection(connection -> sql.query(connection, "get_job_tenant", Params.of("id", id),
                row -> row.getString("tenant"))).stream().findFirst();
    }

    /** {@link #listJobs} over every tenant (an admin's view). */
    public JobPage listJobsAllTenants(JobQuery query) {
        return page("list_newest_jobs_all_tenants", "list_jobs_all_tenants", listParams(query), query);
    }

    private static Map<String, Object> listParams(JobQuery query) {
        Map<String, Object> params = new HashMap<>();
        params.put("status", query.status() == null ? null : query.status().wireName());
        params.put("queue", query.queue());
        params.put("kind", query.kind());
        params.put("cursor", query.cursor());
        params.put("limit", query.limit());
        return params;
    }

    /**
     * The page from the newest 10 x limit jobs below the cursor (at most 1,000) when they hold it
     * ({@code newest}), else from {@code byIndexes}, which reads the jobs by the filters' indexes.
     * Each answer is a page of its own snapshot, so the two are never merged. Two statements rather
     * than one, so that the database plans the second (milliseconds on PostgreSQL: 2-4 ms a page of
     * 50 where the newest jobs' read takes 0.3-0.6) only for a page the newest jobs do not fill.
     */
    private JobPage page(String newest, String byIndexes, Map<String, Object> params, JobQuery query) {
        List<Job> jobs = withConnection(connection -> {
            List<Job> newestJobs = sql.query(connection, newest, params, new JobRows(sql.dialect()));
            return newestJobs.size() == query.limit() ? newestJobs
                    : sql.query(connection, byIndexes, params, new JobRows(sql.dialect()));
        });
        UUID next = jobs.size() == query.limit() ? jobs.getLast().id() : null;
        return new JobPage(jobs, next);
    }

    /** Claims up to {@code limit} queued jobs of {@code queue} under {@code token} (fresh per call). */
    public List<Claimed> claimJobs(ClaimParams claim, int limit) {
        return claimJobs(claim, null, limit);
    }

    /**
     * Claims as {@link #claimJobs(ClaimParams, int)} does, starting from {@code floor} (null: from
     * the start of the queue); see {@link ClaimFloor}.
     */
    public List<Claimed> claimJobs(ClaimParams claim, ClaimFloor floor, int limit) {
        return claimJobs(claim, floor, () -> limit);
    }

    /**
     * Claims as {@link #claimJobs(ClaimParams, ClaimFloor, int)} does, asking {@code limit} how many
     * when the statement is about to run. Where the database writes one transaction at a time
     * ({@link dev.skiplock.spi.Dialect#writesOneAtATime}), that is once the claim's transaction holds
     * the write lock: a claimer that waited for another writer (the completer) then fills the slots
     * freed meanwhile in the same statement. SQLite pays a commit (an fsync) per write statement
     * whatever its size, and a drain's claimer that counted its slots before waiting took about half
     * of them. Where the store accounts for the hot path ({@link HotPathBookkeeping}), the claim's
     * bookkeeping runs in the same transaction. Where the dialect says so
     * ({@link dev.skiplock.spi.Dialect#readsClaimedJobsAfterCommit}), the jobs' rows are read once
     * the claim has committed, on the same connection (the jobs' leases run: no second wait for the
     * pool); if that read fails, the call fails as a claim whose answer was lost does (its caller
     * gives the jobs back).
     */
    public List<Claimed> claimJobs(ClaimParams claim, ClaimFloor floor, IntSupplier limit) {
        if (readsClaimedJobsAfterCommit) {
            return sql.inClaimTransaction(
                    transaction -> claimKeysOn(transaction, claimParams(claim, floor, limit.getAsInt())),
                    (connection, keys) -> keys.isEmpty() ? List.of() : readClaimedJobs(connection, keys, claim.token()));
        }
        Function<Connection, List<Claimed>> run =
                connection -> claimOn(connection, claimParams(claim, floor, limit.getAsInt()));
        return sql.dialect().writesOneAtATime() || hotPath != null ? sql.inClaimTransaction(run) : withConnection(run);
    }

    /**
     * Takes {@code jobs} the whole hot path on a pooled connection, in a transaction rolled back at
     * the end: insert, a claim of them all (as {@code claim}; again from the floor it left while
     * one comes back short), one completion batch, a look for orphans (an idle claimer's first
     * statement when woken), a claim from the floor that finds nothing left, and the look-behind's
     * query. No row stays and nothing is
     * announced (PostgreSQL keeps the dead row versions until vacuum); what remains is warmth
     * (issue #12): this JVM has run the code that writes and reads those statements, the code that
     * reads a claimed row once per job, and that one connection's backend has planned them and
     * compiled the trigger functions they fire. Returns the claims whose completion applied. The
     * first job is inserted alone by {@code insert_queued_job} (a lone enqueue's statement), the
     * others by {@code insert_jobs} (batches).
     */
    public List<Claimed> rehearse(List<Job> jobs, ClaimParams claim) {
        return withConnection(connection -> rehearseOn(connection, jobs, jobs.size(), claim));
    }

    /**
     * As {@link #rehearse}, on each connection the pool holds idle, all borrowed at once so that
     * each is a different backend ({@link PoolLoans}), each with fresh {@code jobs} claimed one a
     * claim, each claim from the floor the last one left, as a claimer woken for each job claims
     * them. A backend's first run of the claim costs it the plans of the function's statements and
     * the caches of the tables it touches (issue #12: a worker's first claim on a connection the
     * warm-up had not used took 15.6 ms in PostgreSQL, 0.8 ms on one it had); and a claim's first
     * runs on a connection are not yet prepared on the server (pgjdbc prepares a statement at its
     * fifth run, then reads its rows in binary, code a JVM runs first then). Returns each
     * connection's claims whose completion applied.
     */
    public List<List<Claimed>> rehearseOnEachConnection(java.util.function.Supplier<List<Job>> jobs, ClaimParams claim) {
        // In parallel where writers run side by side: the backends' first runs are most of the time
        return PoolLoans.onEachIdle(sql.dataSource(), !sql.dialect().writesOneAtATime(),
                connection -> rehearseOn(connection, jobs.get(), 1, claim));
    }

    /** The rehearsal on {@code connection}; {@code perClaim}: how many jobs a claim asks for. */
    private List<Claimed> rehearseOn(Connection connection, List<Job> jobs, int perClaim, ClaimParams claim) {
        Set<UUID> ids = jobs.stream().map(Job::id).collect(Collectors.toSet());
        return sql.rolledBack(connection, transaction -> {
            inserter.insertJobs(transaction, jobs.subList(0, 1));
            if (jobs.size() > 1) {
                inserter.insertJobs(transaction, jobs.subList(1, jobs.size()));
            }
            List<Claimed> claimed = new ArrayList<>();
            ClaimFloor floor = null;
            for (int round = 0; round < jobs.size() && claimed.size() < jobs.size(); round++) {
                // Only its own jobs: a queue of that name may hold an application's jobs (untouched, rolled back).
                List<Claimed> taken = claimOn(transaction, claimParams(claim, floor, perClaim)).stream()
                        .filter(row -> ids.contains(row.job().id())).toList();
                if (taken.isEmpty()) {
                    break;
                }
                claimed.addAll(taken);
                floor = ClaimFloor.of(taken.getLast().job());
            }
            // A set of leases, as completeJobs answers: a record's first hashCode and equals link its methods (ms)
            Set<HeldAttempt> applied = claimed.isEmpty() ? Set.of() : completeOn(transaction, batch(claimed.stream()
                    .map(job -> new Completion(job.lease(), JobStatus.SUCCEEDED, 0, null, null, 0)).toList()),
                    new HashSet<>()); // rolled back: nothing released
            Map<String, Object> adopt = claimParams(claim, null, 1);
            adopt.put("host_stale_ms", claim.leaseMillis());
            sql.query(transaction, "adopt_orphans", adopt, row -> 1);
            if (floor != null) {
                // A claim from the floor that finds nothing left (its instants bound), and the look-behind's query
                claimOn(transaction, claimParams(claim, floor, 1));
                sql.query(transaction, "first_claimable", Params.of("queue", claim.queue(), "priority", floor.priority()),
                        row -> 1);
            }
            return claimed.stream().filter(job -> applied.contains(job.lease())).toList();
        });
    }

    /**
     * Runs claim_jobs on {@code connection}, with the claim's bookkeeping where the store does it (in
     * its transaction), and returns the claimed jobs (read in the same transaction).
     */
    private List<Claimed> claimOn(Connection connection, Map<String, Object> params) {
        UUID token = (UUID) params.get("token");
        if (readsClaimedJobsAfterCommit) {
            List<ClaimedJobKey> keys = claimKeysOn(connection, params);
            return keys.isEmpty() ? List.of() : readClaimedJobs(connection, keys, token);
        }
        List<Claimed> claimed = sql.query(connection, "claim_jobs", params, new ClaimedRows(sql.dialect(), token));
        if (hotPath != null) {
            hotPath.claimed(connection, claimed.stream().map(row -> ClaimedJobKey.of(row.job())).toList());
        }
        return claimed;
    }

    /** Runs claim_jobs where it returns the claimed jobs' keys, with the claim's bookkeeping (in its transaction). */
    private List<ClaimedJobKey> claimKeysOn(Connection transaction, Map<String, Object> params) {
        List<ClaimedJobKey> keys = sql.query(transaction, "claim_jobs", params, row -> new ClaimedJobKey(
                sql.dialect().getUuid(row, row.findColumn("id")), row.getString("tenant"), row.getString("queue")));
        if (hotPath != null) {
            hotPath.claimed(transaction, keys);
        }
        return keys;
    }

    /**
     * The rows of the jobs just claimed under {@code token}, in claim order. A job whose lease is no
     * longer the claim's is left out: it was reaped (the claimer stalled for a lease's length since
     * its claim), and its attempt is recorded as lost by whoever adopts it.
     */
    private List<Claimed> readClaimedJobs(Connection connection, List<ClaimedJobKey> keys, UUID token) {
        ArrayNode ids = Json.MAPPER.createArrayNode();
        keys.forEach(key -> ids.add(key.id().toString()));
        List<Claimed> jobs = sql.query(connection, "read_claimed_jobs", Params.of("ids", ids.toString(), "token", token),
                new ClaimedRows(sql.dialect(), token));
        if (jobs.size() < keys.size()) {
            LOG.warn("{} of {} jobs claimed under {} lost their lease before their rows were read (this worker"
                    + " stalled for a lease's length); not run here, they are adopted as orphans",
                    keys.size() - jobs.size(), keys.size(), token);
        }
        return jobs;
    }

    /** The parameters of claim_jobs (also of the rehearsal's adopt_orphans, which has no floor); a null floor claims from the start. */
    private static Map<String, Object> claimParams(ClaimParams claim, ClaimFloor floor, int limit) {
        return Params.of("queue", claim.queue(), "worker", claim.worker(), "host", claim.host(), "token", claim.token(),
                "lease_ms", claim.leaseMillis(), "resumable_kinds", claim.resumableKinds(), "limit", limit,
                // Without a floor, a priority above every int: the whole queue is the lower part, in order.
                // Always a long: a priority bound as an int with a floor would change its type between calls.
                "floor_priority", floor == null ? Integer.MAX_VALUE + 1L : (long) floor.priority(),
                "floor_recent_at", floor == null ? null : floor.recentFrom(),
                "floor_at", floor == null ? null : floor.availableAt(),
                "floor_id", floor == null ? null : floor.id());
    }

    /**
     * Whether this database's claim starts from a claimer's floor. SQLite's does not: its claim
     * removes the claimed jobs' index entries, so a walk from the start meets none of them, and a
     * look-behind would only read and wake for nothing.
     */
    public boolean claimsFromFloor() {
        return sql.takes("claim_jobs", "floor_at");
    }

    /**
     * Whether a claim could borrow its connection now without waiting ({@link SqlRunner#hasIdleConnection}):
     * a claim made on a thread that must not wait for one (the notifier's) asks first.
     */
    public boolean hasIdleConnection() {
        return sql.hasIdleConnection();
    }

    /**
     * The first claimable job of {@code priority} in {@code queue}, in claim order, if there is one:
     * the claimer's look-behind (see {@link ClaimFloor}).
     */
    public Optional<ClaimFloor> firstClaimable(String queue, int priority) {
        return withConnection(connection -> sql.query(connection, "first_claimable",
                Params.of("queue", queue, "priority", priority),
                row -> new ClaimFloor(priority, sql.dialect().getInstant(row, 1), sql.dialect().getUuid(row, 2))))
                .stream().findFirst();
    }

    /**
     * Adopts up to {@code limit} orphans of {@code queue} under {@code token}; an orphan tied to a
     * host only when that host is this one or has no live worker of the queue (none heartbeated
     * within {@code hostStaleMillis}).
     */
    public List<Claimed> adoptOrphans(ClaimParams claim, long hostStaleMillis, int limit) {
        JobRows jobs = new JobRows(sql.dialect());
        return withConnection(connection -> sql.query(connection, "adopt_orphans", Params.of(
                "queue", claim.queue(), "worker", claim.worker(), "host", claim.host(), "token", claim.token(),
                "lease_ms", claim.leaseMillis(), "host_stale_ms", hostStaleMillis, "limit", limit), row -> {
                    Job job = jobs.map(row);
                    UUID executionId = sql.dialect().getUuid(row, row.findColumn("claim_token"));
                    return new Claimed(job, new HeldAttempt(job.id(), job.attempt(), claim.token()), executionId,
                            Math.max(0, row.getLong("elapsed_ms")), row.getInt("snoozes"));
                }));
    }

    /**
     * Whether the job's row holds {@code completion} as written under its lease: an earlier write
     * whose answer was lost committed it.
     */
    public boolean completedByLease(Completion completion) {
        HeldAttempt attempt = completion.attempt();
        return !withConnection(connection -> sql.query(connection, "completed_by_lease",
                Params.of("id", attempt.id(), "attempt", attempt.attempt(), "token", attempt.token(),
                        "status", completion.status().wireName()), row -> 1)).isEmpty();
    }

    /** True while the job is running execution {@code executionId} (its claim token), whoever holds the lease. */
    public boolean executionRunning(UUID id, UUID executionId) {
        return !withConnection(connection -> sql.query(connection, "execution_running",
                Params.of("id", id, "execution_id", executionId), row -> 1)).isEmpty();
    }

    /** Gives back, attempt unused, the jobs of a claim of {@code queue} whose answer was lost; returns how many. */
    public int unclaimJobs(String queue, UUID token) {
        return withConnection(connection -> sql.query(connection, "unclaim_jobs", Params.of("queue", queue,
                "token", token), row -> 1)).size();
    }

    /** Extends the leases still held; the answer omits attempts whose lease is gone. */
    public List<HeartbeatAck> heartbeat(long leaseMillis, Collection<HeldAttempt> held) {
        if (held.isEmpty()) {
            return List.of();
        }
        var params = Params.of("lease_ms", leaseMillis, "held", heldJson(held));
        return withConnection(connection -> sql.query(connection, "heartbeat", params,
                row -> new HeartbeatAck(lease(row), row.getBoolean("cancel_requested"), row.getBoolean("extended"))));
    }

    /**
     * Writes the completions fenced on their lease tokens; returns the leases applied (the rest were
     * stale). A token is shared by the jobs of one claim: a lease is the job and its token together.
     */
    public Set<HeldAttempt> completeJobs(Collection<Completion> completions) {
        return completeJobs(completions, queues -> { });
    }

    /**
     * As {@link #completeJobs(Collection)}; {@code dependentsReleased} is told, after the commit, the
     * queues of the dependents the hot path's successes released ({@code release_dependents},
     * SQLite): nothing else wakes those queues' claimers, which otherwise took them at their next
     * poll. PostgreSQL's dependency trigger notifies them itself.
     */
    public Set<HeldAttempt> completeJobs(Collection<Completion> completions, Consumer<Set<String>> dependentsReleased) {
        Batch batch = batch(completions); // before the transaction: SQLite's write lock waits for nothing else
        Set<String> released = new HashSet<>();
        Set<HeldAttempt> applied;
        if (completions.stream().allMatch(completion -> completion.awaitedSignal() == null)) {
            applied = hotPath != null ? sql.inTransaction(connection -> completeOn(connection, batch, released))
                    : withConnection(connection -> completeOn(connection, batch, released));
        } else {
            // A wait for a signal and the look for that signal commit together: a delivery that came
            // while the job still ran (and had nothing to wake) ends the wait, also if this worker
            // dies right after the commit.
            applied = sql.inTransaction(connection -> {
                Set<HeldAttempt> written = completeOn(connection, batch, released);
                for (Completion completion : completions) {
                    if (completion.awaitedSignal() != null && written.contains(completion.attempt())) {
                        signals.wakeForSignal(connection, completion.attempt().id(), completion.awaitedSignal());
                    }
                }
                return written;
            });
        }
        if (!released.isEmpty()) {
            dependentsReleased.accept(released); // committed: the dependents can be claimed now
        }
        return applied;
    }


    /**
     * Writes one outcome on the caller's connection, in the caller's transaction (a handler's
     * completion together with its own writes): true if applied, false if the lease is gone.
     */
    public boolean completeJobs(Connection connection, Completion completion) {
        return !sql.query(connection, "complete_jobs", completionParams(List.of(completion)), this::lease).isEmpty();
    }

    /**
     * A batch of completions as the statements take them: where the store does the hot path's
     * bookkeeping, the successes apart (complete_successes' JSON, {@link CompletionParams#successes});
     * the others as complete_jobs' parameters. A part without completions is null;
     * {@code successCount}: how many successes it holds.
     */
    private record Batch(String successes, int successCount, Map<String, Object> others) {
    }

    private Batch batch(Collection<Completion> completions) {
        if (hotPath == null) {
            return new Batch(null, 0, completionParams(completions));
        }
        List<Completion> successes = new ArrayList<>(completions.size());
        List<Completion> others = new ArrayList<>();
        for (Completion completion : completions) {
            boolean success = completion.status() == JobStatus.SUCCEEDED && completion.error() == null
                    && completion.awaitedSignal() == null && completion.extraAttempts() == 0;
            (success ? successes : others).add(completion);
        }
        return new Batch(successes.isEmpty() ? null : CompletionParams.successes(successes), successes.size(),
                others.isEmpty() ? null : completionParams(others));
    }

    private Map<String, Object> completionParams(Collection<Completion> completions) {
        return CompletionParams.of(completions, sql.dialect().takesArrays());
    }

    /**
     * Writes {@code batch} on {@code connection}: its successes by complete_successes (accounted for
     * on the same connection, so the caller runs this in a transaction), the rest by complete_jobs.
     */
    private Set<HeldAttempt> completeOn(Connection connection, Batch batch, Set<String> releasedQueues) {
        // Each set sized by the rows it takes first: no rehash per batch (issue #12, allocations)
        Set<HeldAttempt> applied = null;
        if (batch.successes() != null) {
            applied = new HashSet<>(hotPath.completeSuccesses(connection, batch.successes(), batch.successCount(),
                    releasedQueues));
        }
        if (batch.others() != null) {
            List<HeldAttempt> written = sql.query(connection, "complete_jobs", batch.others(), this::lease);
            if (applied == null) {
                applied = new HashSet<>(written);
            } else {
                applied.addAll(written);
            }
        }
        return applied == null ? new HashSet<>() : applied;
    }

    /** The lease a row of heartbeat or complete_jobs names: id, attempt, token. */
    private HeldAttempt lease(ResultSet row) throws SQLException {
        return new HeldAttempt(sql.dialect().getUuid(row, row.findColumn("id")), row.getInt("attempt"),
                sql.dialect().getUuid(row, row.findColumn("token")));
    }

    /** True if {@code failure} is a statement of this store rejecting the data it carried. */
    public boolean isDataError(RuntimeException failure) {
        return sql.isDataError(failure);
    }

    /** Gives leases back at shutdown; returns how many jobs were released. */
    public int releaseJobs(Collection<HeldAttempt> held) {
        if (held.isEmpty()) {
            return 0;
        }
        var params = Params.of("held", heldJson(held));
        return withConnection(connection -> sql.query(connection, "release_jobs", params,
                row -> row.getString("id"))).size();
    }

    /**
     * Clears expired leases, every one; returns the number of orphans per queue. A statement clears
     * at most {@link #REAP_LIMIT} (PostgreSQL's, so that its locks and its notifications stay
     * bounded): one that found its limit runs again, or a node that died with more running jobs left
     * the rest for the next intervals, each {@code reaperInterval} longer than the rescue's bound. A
     * round that fails after others committed ends the run with what they cleared, so that it is
     * counted and its queues' claimers are told; the next run takes the rest.
     */
    public Map<String, Integer> reapExpiredLeases() {
        Map<String, Integer> orphans = new HashMap<>();
        int cleared;
        do {
            List<String> queues;
            try {
                queues = withConnection(connection -> sql.query(connection, "reap_expired_leases",
                        Params.of("limit", REAP_LIMIT), row -> row.getString("queue")));
            } catch (RuntimeException e) {
                if (orphans.isEmpty()) {
                    throw e;
                }
                LOG.warn("the reaper stopped after clearing {} expired leases: {}", orphans.values().stream()
                        .mapToInt(Integer::intValue).sum(), e.getMessage());
                return orphans;
            }
            queues.forEach(queue -> orphans.merge(queue, 1, Integer::sum));
            cleared = queues.size();
        } while (cleared >= REAP_LIMIT);
        return orphans;
    }

    /**
     * Takes this worker's turn at the settle's search ({@code take_maintenance_turn}): true when
     * {@code worker} took it last, or no other process took it within {@code interval}, or its time
     * lies more than that ahead of the database's clock. Every worker's reaper asks, every {@code
     * interval}; the search reads every waiting job, mostly to find nothing, so the processes
     * sharing a database search about once an interval between them. {@link Duration#ZERO}: take it.
     */
    public boolean takeMaintenanceTurn(Duration interval, String worker) {
        return !sql.query("take_maintenance_turn", Params.of("task", SETTLE_TURN, "worker", worker,
                "interval_ms", interval.toMillis()), row -> row.getString("task")).isEmpty();
    }

    /**
     * Queues (or fails) waiting jobs whose dependencies all finished; returns how many changed. The
     * search is a read of its own ({@code find_settleable_jobs}, with JIT off: {@link
     * SqlRunner#readWithoutJit}), and only what it finds is settled, read again by the statement
     * that settles it; while a search finds a full batch, another follows from the last id it found,
     * up to {@value #SETTLE_ROUNDS}. If it fails, {@code worker}'s turn is given back, so that a
     * process failing at it does not keep the others from it.
     */
    public int settleWaitingJobs(String worker) {
        try {
            int settled = 0;
            String after = new UUID(0, 0).toString();
            for (int round = 0; round < SETTLE_ROUNDS; round++) {
                List<String> settleable = sql.readWithoutJit("find_settleable_jobs", Params.of("after", after),
                        row -> row.getString("id"));
                if (!settleable.isEmpty()) {
                    settled += sql.query("settle_waiting_jobs", Params.of("ids", Json.write(settleable)), row -> 1).size();
                }
                if (settleable.size() < SETTLE_BATCH) {
                    break;
                }
                after = settleable.getLast();
            }
            return settled;
        } catch (RuntimeException e) {
            try {
                sql.update("give_back_maintenance_turn", Params.of("task", SETTLE_TURN, "worker", worker));
            } catch (RuntimeException notGivenBack) {
                e.addSuppressed(notGivenBack);
            }
            throw e;
        }
    }

    /** Cancels or flags the job; empty when it does not exist or is already terminal. */
    public Optional<Job> cancelJob(String tenant, UUID id) {
        return withConnection(connection -> sql.query(connection, "cancel_job",
                Params.of("tenant", tenant, "id", id), new JobRows(sql.dialect()))).stream().findFirst();
    }

    /** Deletes a terminal job and its events; false when it does not exist or is not terminal. */
    public boolean deleteJob(String tenant, UUID id) {
        return withConnection(connection -> sql.update(connection, "delete_job",
                Params.of("tenant", tenant, "id", id))) == 1;
    }

    /**
     * Re-queues a terminal job (or makes it wait again for dependencies not yet succeeded); empty
     * when it does not exist, is not terminal, or has a dependency that failed ({@link #failedDependency}).
     *
     * @throws UniqueKeyTakenException if another live job now holds its unique key
     */
    public Optional<Job> retryJob(String tenant, UUID id) {
        try {
            return withConnection(connection -> sql.query(connection, "retry_job",
                    Params.of("tenant", tenant, "id", id), new JobRows(sql.dialect()))).stream().findFirst();
        } catch (SqlRunner.StoreException e) {
            if (sql.dialect().isUniqueViolation(e.sqlCause())) {
                throw new UniqueKeyTakenException(e);
            }
            throw e;
        }
    }

    /** "id status" of a dependency of the job that failed, timed out or was cancelled, if any. */
    public Optional<String> failedDependency(UUID id) {
        return withConnection(connection -> sql.query(connection, "failed_dependency", Params.of("id", id),
                row -> sql.dialect().getUuid(row, row.findColumn("id")) + " " + row.getString("status")))
                .stream().findFirst();
    }

    /** A job could not return to the live statuses: another live job holds its unique key. */
    public static final class UniqueKeyTakenException extends RuntimeException {
        UniqueKeyTakenException(Throwable cause) {
            super(cause);
        }
    }

    /** Jobs per queue and status of {@code tenant}, or of every tenant when it is {@code null}; read from the counts table. */
    public List<QueueCount> countJobs(String tenant) {
        return withConnection(connection -> countJobs(connection, tenant));
    }

    private List<QueueCount> countJobs(Connection connection, String tenant) {
        return tenant == null
                ? sql.query(connection, "count_jobs_all_tenants", Params.of(), JobStore::queueCount)
                : sql.query(connection, "count_jobs", Params.of("tenant", tenant), JobStore::queueCount);
    }

    private static QueueCount queueCount(ResultSet row) throws SQLException {
        return new QueueCount(row.getString("queue"), JobStatus.fromWireName(row.getString("status")), row.getLong("jobs"));
    }

    /**
     * Folds the counts' deltas (PostgreSQL appends a row per changing statement and group) and
     * the finishes per minute, dropping minutes over an hour old. The finishes are folded for the
     * minutes since {@code reaperInterval} and one more minute ago, so a reaper that runs at its
     * interval folds each minute once after it ends, and never reads the older ones again (a minute
     * it misses keeps its rows, summed as they are, until they expire).
     */
    public void compactJobCounts(Duration reaperInterval) {
        long foldMillis = reaperInterval.plus(Duration.ofMinutes(1)).toMillis();
        withConnection(connection -> sql.update(connection, "compact_job_counts", Params.of())
                + sql.update(connection, "compact_job_throughput", Params.of("fold_ms", foldMillis)));
    }

    /** Per queue of {@code tenant} (every tenant when {@code null}): its oldest available job and finishes per minute. */
    public List<QueueActivity> queueActivity(String tenant) {
        return withConnection(connection -> {
            Map<String, Instant> oldest = new TreeMap<>();
            List<QueueCount> tenantCounts = countJobs(connection, tenant);
            Optional<String> statement = OldestQueuedRead.statement(tenantCounts,
                    () -> tenant == null ? tenantCounts : countJobs(connection, null));
            if (statement.isPresent()) {
                sql.query(connection, statement.get(), Params.of("tenant", tenant), row -> oldest.put(row.getString("queue"),
                        sql.dialect().getInstant(row, row.findColumn("oldest"))));
            }
            Map<String, long[]> finished = new TreeMap<>();
            sql.query(connection, "queue_activity", Params.of("tenant", tenant), row -> {
                int minutesAgo = row.getInt("minutes_ago");
                if (minutesAgo >= 0 && minutesAgo < QueueActivity.MINUTES) {
                    finished.computeIfAbsent(row.getString("queue"), queue -> new long[QueueActivity.MINUTES])
                            [QueueActivity.MINUTES - 1 - minutesAgo] += row.getLong("finished");
                }
                return null;
            });
            Set<String> queues = new TreeSet<>(oldest.keySet());
            queues.addAll(finished.keySet());
            List<QueueActivity> activity = new ArrayList<>();
            for (String queue : queues) {
                long[] perMinute = finished.getOrDefault(queue, new long[QueueActivity.MINUTES]);
                activity.add(new QueueActivity(queue, oldest.get(queue), Arrays.stream(perMinute).boxed().toList()));
            }
            return activity;
        });
    }

    /**
     * On SQLite, how many events (log lines, status changes…) one batch of {@link #pruneFinished}
     * deletes at most, past its first job: their delete holds the write lock every enqueue, claim
     * and heartbeat waits for (a million rows took 2.5-4 s here). PostgreSQL locks the rows it
     * deletes only, and takes the batch whole.
     */
    public static final int MAX_PRUNED_EVENTS = 50_000;

    /**
     * Deletes up to {@code limit} jobs finished more than {@code ageMillis} ago (by the database's
     * clock), on SQLite fewer when their events pass {@link #MAX_PRUNED_EVENTS}; returns how many
     * (fewer than {@code limit} does not mean none are left). The walk over the history stops at the ids of jobs enqueued
     * {@code ageMillis} ago and {@link #ENQUEUE_CLOCK_MARGIN} more, by the wall clock {@link Uuid7}
     * makes ids with (not {@code SkiplockConfig.clock}): a job finishes after it is enqueued, and
     * every job id is a UUIDv7 of its enqueue. A job enqueued on a host whose clock ran more than
     * the margin ahead of this one's is deleted up to that excess later.
     */
    public int pruneFinished(long ageMillis, int limit) {
        return pruneFinished(ageMillis, limit, null).deleted();
    }

    /**
     * {@link #pruneFinished(long, int)} walking the ids above {@code after} only: a run's batches
     * each go on where the one before stopped ({@link PrunedJobs#last()}), so none walks again what
     * the others walked. From the oldest id, every batch read again the jobs still there below its
     * first (a paused queue's old jobs) and, while a long transaction held vacuum back, the index
     * entries of every job the run had deleted: a run of n batches walked them n times.
     * {@code null}: from the oldest.
     */
    public PrunedJobs pruneFinished(long ageMillis, int limit, UUID after) {
        UUID enqueuedBefore = Uuid7.floor(
                System.currentTimeMillis() - ageMillis + ENQUEUE_CLOCK_MARGIN.toMillis());
        List<UUID> deleted = withConnection(connection -> sql.query(connection, "prune_finished",
                Params.of("age_ms", ageMillis, "limit", limit, "enqueued_before", enqueuedBefore,
                        "after", after == null ? new UUID(0, 0) : after, "max_events", MAX_PRUNED_EVENTS),
                row -> sql.dialect().getUuid(row, 1)));
        return PrunedJobs.of(deleted);
    }

    private static String heldJson(Collection<HeldAttempt> held) {
        ArrayNode batch = Json.MAPPER.createArrayNode();
        for (HeldAttempt attempt : held) {
            batch.addObject().put("id", attempt.id().toString()).put("token", attempt.token().toString());
        }
        return batch.toString();
    }

    private <T> T withConnection(Function<Connection, T> work) {
        return sql.withConnection(work);
    }
}
