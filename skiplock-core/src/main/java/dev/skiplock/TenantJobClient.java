package dev.skiplock;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.RefusedJob;
import dev.skiplock.internal.Uuid7;
import dev.skiplock.internal.engine.Worker;
import dev.skiplock.internal.engine.MemoryJobs;
import dev.skiplock.internal.EventSignals;
import dev.skiplock.internal.store.CronStore;
import dev.skiplock.internal.store.EventStore;
import dev.skiplock.internal.store.Inserted;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.internal.store.SignalStore;
import dev.skiplock.internal.store.Stores;
import dev.skiplock.internal.engine.JobTracing;
import dev.skiplock.internal.engine.Steps;
import dev.skiplock.internal.engine.UnservedQueues;
import dev.skiplock.spi.Notifier;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * {@link JobClient} for one tenant over the store; wakes this instance's claimers after a commit.
 * In-memory jobs ({@link JobRequest#durable()} false) go to {@link MemoryJobs}; every call taking a
 * job id asks it first.
 */
final class TenantJobClient implements JobClient {
    static final int MAX_BATCH = 10_000;

    private final String tenant;
    private final JobStore store;
    private final CronStore cron;
    private final SkiplockConfig config;
    private final Worker worker;
    private final Notifier notifier;
    private final EventStore events;
    private final EventSignals signals;
    private final MemoryJobs memory;
    private final SignalStore signalStore;
    private final UnservedQueues unserved;

    TenantJobClient(String tenant, Stores stores, SkiplockConfig config, Worker worker, Notifier notifier,
            EventSignals signals, MemoryJobs memory, UnservedQueues unserved) {
        this.tenant = Names.check("tenant", tenant);
        this.store = stores.jobs();
        this.cron = stores.cron();
        this.events = stores.events();
        this.config = config;
        this.worker = worker;
        this.notifier = notifier;
        this.signals = signals;
        this.memory = memory;
        this.signalStore = stores.signals();
        this.unserved = unserved;
    }

    @Override
    public String tenant() {
        return tenant;
    }

    @Override
    public Job enqueue(JobRequest request) {
        if (request != null && !request.durable()) {
            return memory.submit(inMemory(request));
        }
        return insertCommitted(requested(List.of(request)), List.of(request)).getFirst();
    }

    @Override
    public Enqueued enqueueOrReuse(JobRequest request) {
        if (request != null && !request.durable()) {
            return new Enqueued(memory.submit(inMemory(request)), true);
        }
        Job job = requested(List.of(request)).getFirst();
        Job stored = insertCommitted(List.of(job), List.of(request)).getFirst();
        return new Enqueued(stored, stored.id().equals(job.id()));
    }

    @Override
    public Job enqueue(Connection connection, JobRequest request) {
        return insertInto(connection, List.of(request)).getFirst();
    }

    @Override
    public Optional<Job> enqueueScheduled(String schedule, Instant slot, JobRequest request) {
        Names.check("schedule", schedule);
        if (slot == null) {
            throw new IllegalArgumentException("slot: is required");
        }
        if (request == null) {
            throw new IllegalArgumentException("request: is required");
        }
        if (request.uniqueKey() != null) {
            throw new IllegalArgumentException("uniqueKey: a scheduled job is identified by its schedule and "
                    + "slot; leave uniqueKey unset");
        }
        Optional<Job> stored = cron.claimCronSlot(schedule, slot.toEpochMilli(), requested(request));
        stored.ifPresent(job -> {
            unserved.enqueued(List.of(job.queue()));
            wakeQueuesOf(List.of(request), false);
            signals.signal(job.id());
        });
        return stored;
    }

    @Override
    public List<Job> enqueueMany(List<JobRequest> requests) {
        try {
            return insertCommitted(requested(requests), requests);
        } catch (RefusedJob e) {
            throw e.inBatch();
        }
    }

    /** Inserts in a transaction of its own, then wakes workers and followers: the jobs are committed. */
    private List<Job> insertCommitted(List<Job> jobs, List<JobRequest> requests) {
        Inserted inserted = store.insertJobs(jobs);
        List<Job> stored = inserted.jobs();
        unserved.enqueued(queuesOfNew(jobs, stored));
        wakeQueuesOf(requests, inserted.announced());
        signals.signalAll(stored.stream().map(Job::id).toList());
        return stored;
    }

    @Override
    public List<Job> enqueueMany(Connection connection, List<JobRequest> requests) {
        try {
            return insertInto(connection, requests);
        } catch (RefusedJob e) {
            throw e.inBatch();
        }
    }

    /** Inserts in the caller's transaction; a job's refusal names no batch ({@link RefusedJob}). */
    private List<Job> insertInto(Connection connection, List<JobRequest> requests) {
        if (connection == null) {
            throw new IllegalArgumentException("connection: is required");
        }
        List<Job> jobs = requested(requests);
        if (jobs.stream().anyMatch(job -> !job.dependsOn().isEmpty()) && autoCommits(connection)) {
            // The job and its dependency rows must commit together: committed apart, a dependency
            // finishing in between would not see them, and the job would wait without a cause.
            throw new IllegalArgumentException("connection: enqueue with dependsOn needs a transaction;"
                    + " call setAutoCommit(false) first (or enqueue without a connection)");
        }
        List<Job> stored = store.insertJobs(connection, jobs);
        unserved.enqueued(queuesOfNew(jobs, stored));
        return stored;
    }

    /**
     * The queue of each job {@code stored} that this enqueue made: a request whose unique key a live
     * job held returned that job, which is not enqueued again (its id is not one the request drew).
     */
    private static List<String> queuesOfNew(List<Job> requested, List<Job> stored) {
        Set<UUID> drawn = new java.util.HashSet<>(requested.size() * 2);
        requested.forEach(job -> drawn.add(job.id()));
        return stored.stream().filter(job -> drawn.contains(job.id())).map(Job::queue).toList();
    }

    /**
     * The enqueue path's rehearsal ({@link EnqueueWarmup}): the requests made into jobs as an
     * enqueue makes them, inserted as a lone enqueue and a batch are, and rolled back. No worker is
     * woken, no follower signalled, no unserved queue counted. Returns the jobs as inserted.
     */
    List<Job> rehearseEnqueue(JobRequest lone, List<JobRequest> batch) {
        return store.rehearseEnqueue(requested(lone), requested(batch));
    }

    private static boolean autoCommits(Connection connection) {
        try {
            return connection.getAutoCommit();
        } catch (java.sql.SQLException e) {
            throw new SkiplockException("cannot read the connection's autoCommit: " + e.getMessage(), e);
        }
    }

    private List<Job> requested(List<JobRequest> requests) {
        if (requests == null || requests.isEmpty()) {
            throw new IllegalArgumentException("jobs: at least one job is required");
        }
        if (requests.size() > MAX_BATCH) {
            throw new IllegalArgumentException("jobs: at most " + MAX_BATCH + " per call, got " + requests.size());
        }
        List<Job> jobs = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            if (requests.get(i) == null) {
                throw new IllegalArgumentException("jobs: must not contain null");
            }
            try {
                jobs.add(requested(requests.get(i)));
            } catch (IllegalArgumentException e) {
                throw new RefusedJob(i, e); // a batch names the job; a single enqueue says the field alone
            }
        }
        return jobs;
    }

    /**
     * The durable job {@code request} asks for, about to be inserted. Its args and metadata must be
     * storable in every database ({@link JobRequest#requireStorable()}).
     */
    private Job requested(JobRequest request) {
        if (!request.durable()) {
            throw new IllegalArgumentException("durable: an in-memory job is enqueued on its own with enqueue(JobRequest),"
                    + " not in a batch, a transaction or a schedule");
        }
        return storable(toJob(request));
    }

    /**
     * The in-memory job {@code request} asks for. Its data is held to the durable rule too: whether
     * a job is stored must not change which args a client may send.
     */
    private Job inMemory(JobRequest request) {
        return storable(toJob(request));
    }

    /** Checked on the job's converted documents, so a request's args are converted once. */
    private static Job storable(Job job) {
        JobRequest.requireStorable("args", job.args());
        JobRequest.requireStorable("metadata", job.metadata());
        return job;
    }

    /** The job {@code request} asks for as the store inserts it: queued, attempt 0, the database's times unset. */
    private Job toJob(JobRequest request) {
        JsonNode args = request.args() == null ? Json.object() : Json.MAPPER.valueToTree(request.args());
        // Most jobs have no metadata: skip the serializer round trip of valueToTree for them.
        JsonNode metadata = request.metadata().isEmpty() ? Json.object() : Json.MAPPER.valueToTree(request.metadata());
        int maxAttempts = request.maxAttempts() != null ? request.maxAttempts() : config.defaultMaxAttempts();
        Integer timeoutSeconds = request.timeout() == null ? null : (int) request.timeout().toSeconds();
        return Job.builder().id(Uuid7.next()).tenant(tenant).queue(request.queue()).kind(request.kind())
                .args(args).metadata(metadata).priority(request.priority())
                // the trace context current at enqueue, unless the request names one
                .traceparent(request.traceparent() != null ? request.traceparent() : JobTracing.currentTraceparent())
                .status(JobStatus.QUEUED).maxAttempts(maxAttempts).availableAt(request.runAt())
                .timeoutSeconds(timeoutSeconds).uniqueKey(request.uniqueKey()).dependsOn(request.dependsOn())
                .build();
    }

    /** Wakes this instance's claimers of the requests' queues, and the other listeners unless the commit {@code announced} them. */
    private void wakeQueuesOf(List<JobRequest> requests, boolean announced) {
        Set<String> queues = new LinkedHashSet<>();
        requests.forEach(request -> queues.add(request.queue()));
        for (String queue : queues) {
            worker.wake(queue);
            if (!announced) {
                notifier.publishQueueReady(queue);
            }
        }
    }

    @Override
    public Optional<Job> get(UUID id) {
        Optional<Job> inMemory = memory.get(tenant, requireId(id));
        return inMemory.isPresent() ? inMemory : store.getJob(tenant, id);
    }

    @Override
    public JobPage list(JobQuery query) {
        return store.listJobs(tenant, query == null ? JobQuery.all() : query);
    }

    @Override
    public List<JobEvent> events(UUID id, long afterSeq, int limit) {
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit: must be between 1 and 1000, got " + limit);
        }
        if (memory.owns(tenant, requireId(id))) {
            return memory.events(tenant, id, afterSeq, limit);
        }
        return events.listEvents(tenant, id, afterSeq, limit);
    }

    @Override
    public List<JobEvent> awaitEvents(UUID id, long afterSeq, int limit, Duration maxWait)
            throws InterruptedException {
        // A wait of this thread: measured by the monotonic timer, not the worker's clock (a clock a
        // test moves by hand must not make a follower wait forever or not at all).
        long deadline = System.nanoTime() + maxWait.toNanos();
        boolean stored = !memory.owns(tenant, requireId(id));
        while (true) {
            CompletableFuture<Void> signal = signals.register(id);
            List<JobEvent> found;
            try {
                if (stored && deadline - System.nanoTime() > 0) {
                    notifier.follow(); // before the read: a completion it does not see announces the job
                }
                found = events(id, afterSeq, limit);
            } catch (RuntimeException | InterruptedException e) {
                // a registration left behind kept the process following events for good (PostgreSQL:
                // every job-ended notification parsed)
                signals.unregister(id, signal);
                throw e;
            }
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (!found.isEmpty() || left <= 0) {
                signals.await(id, signal, 0);
                if (found.isEmpty() && get(id).isEmpty()) {
                    throw new JobNotFoundException(id);
                }
                return found;
            }
            // Other processes' events without a notification (SQLite) show up within a second.
            signals.await(id, signal, Math.min(left, 1000));
        }
    }

    @Override
    public void delete(UUID id) {
        if (memory.owns(tenant, requireId(id))) {
            memory.delete(tenant, id);
            return;
        }
        if (!store.deleteJob(tenant, id)) {
            Job job = get(id).orElseThrow(() -> new JobNotFoundException(id));
            throw new JobStateException("job " + id + " is " + job.status().wireName() + ", not terminal", job);
        }
    }

    @Override
    public List<QueueCount> count() {
        return store.countJobs(tenant);
    }

    @Override
    public List<QueueActivity> activity() {
        return store.queueActivity(tenant);
    }

    @Override
    public Job cancel(UUID id) {
        if (memory.owns(tenant, requireId(id))) {
            return memory.cancel(tenant, id);
        }
        Optional<Job> cancelled = store.cancelJob(tenant, id);
        if (cancelled.isEmpty()) {
            Job job = get(id).orElseThrow(() -> new JobNotFoundException(id));
            throw new JobStateException("job " + id + " is already " + job.status().wireName(), job);
        }
        signals.signal(id);
        if (cancelled.get().status() == JobStatus.RUNNING) {
            worker.cancelLocal(id);
            notifier.publishCancel(id);
        }
        return cancelled.get();
    }

    @Override
    public Job signal(UUID id, String name, Object payload) {
        String checked = Names.check("name", name);
        if (memory.owns(tenant, requireId(id))) {
            throw new JobNotFoundException(id); // in-memory jobs take no signals (JobContext.awaitSignal)
        }
        String json = Steps.outputJson("payload", storablePayload(payload), config.maxStepOutputBytes());
        SignalStore.Delivery delivery = signalStore.insertSignal(tenant, id, checked, json)
                .orElseThrow(() -> new JobNotFoundException(id));
        if (!delivery.delivered()) {
            Job job = get(id).orElseThrow(() -> new JobNotFoundException(id));
            throw new JobStateException(job.status().isTerminal()
                    ? "job " + id + " is already " + job.status().wireName()
                    : "signal " + checked + " was already delivered to job " + id, job);
        }
        for (String queue : delivery.wokenQueues()) {
            worker.wake(queue);
            notifier.publishQueueReady(queue);
        }
        signals.signal(id);
        return get(id).orElseThrow(() -> new JobNotFoundException(id));
    }

    /**
     * A signal's payload as a JSON tree, refused by name if it cannot be stored as given: it is a
     * caller's input, as a job's args are, not a handler's output, which is stored changed.
     */
    private static JsonNode storablePayload(Object payload) {
        JsonNode tree;
        try {
            tree = payload instanceof JsonNode node ? node : Json.MAPPER.valueToTree(payload);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("payload: cannot be written as JSON: " + e.getMessage(), e);
        }
        if (tree != null) {
            JobRequest.requireStorable("payload", tree);
        }
        return tree;
    }

    @Override
    public Job retry(UUID id) {
        if (memory.owns(tenant, requireId(id))) {
            return memory.retry(tenant, id);
        }
        Optional<Job> retried;
        try {
            retried = store.retryJob(tenant, id);
        } catch (JobStore.UniqueKeyTakenException e) {
            Job job = get(id).orElseThrow(() -> new JobNotFoundException(id));
            throw new JobStateException("job " + id + " cannot be retried: another live job holds its unique key '"
                    + job.uniqueKey() + "'", job);
        }
        if (retried.isEmpty()) {
            Job job = get(id).orElseThrow(() -> new JobNotFoundException(id));
            if (!job.status().isTerminal()) {
                throw new JobStateException("job " + id + " is " + job.status().wireName() + ", not terminal", job);
            }
            String dependency = store.failedDependency(id).orElse("unknown");
            throw new JobStateException("job " + id + " cannot be retried: its dependency " + dependency, job);
        }
        worker.wake(retried.get().queue());
        notifier.publishQueueReady(retried.get().queue());
        signals.signal(id);
        return retried.get();
    }

    private static UUID requireId(UUID id) {
        if (id == null) {
            throw new IllegalArgumentException("id: is required");
        }
        return id;
    }
}
