package dev.skiplock.internal.engine;

import com.fasterxml.jackson.databind.ObjectReader;
import dev.skiplock.Job;
import dev.skiplock.JobContext;
import dev.skiplock.JobOutcome;
import dev.skiplock.ResumableHandler;
import dev.skiplock.SkiplockConfig;
import dev.skiplock.internal.EventSignals;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.store.ClaimParams;
import dev.skiplock.internal.store.Claimed;
import dev.skiplock.internal.store.Completion;
import dev.skiplock.internal.store.JobStore;
import dev.skiplock.internal.store.Stores;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker side of one Skiplock instance: a fetcher per queue, handlers on virtual threads, the
 * completer, and the lease keeper (heartbeat + reaper). Started once, stopped once.
 */
public final class Engine implements QueueFetcher.Work {
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    private final SkiplockConfig config;
    private final JobStore store;
    private final Map<String, HandlerBinding<?>> handlers;
    /** One reader per kind, built once: resolving the args type per job showed in drain profiles. */
    private final Map<String, ObjectReader> argsReaders = new HashMap<>();
    private final Counters counters;
    private final Registry registry = new Registry();
    private final Outcomes outcomes;
    private final Completer completer;
    private final LeaseKeeper leaseKeeper;
    private final Stores stores;
    private final List<QueueFetcher> fetchers = new ArrayList<>();
    /** Kinds whose executions outlive their worker (JSON array): adopted only on their own host while it lives. */
    private final String resumableKindsJson;
    private final LostClaims lostClaims;
    private final ExecutorService handlerThreads =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("skiplock-job-", 0).factory());

    public Engine(SkiplockConfig config, Stores stores, Map<String, HandlerBinding<?>> handlers, Counters counters,
            EventSignals signals) {
        this.config = config;
        this.store = stores.jobs();
        this.stores = stores;
        this.handlers = Map.copyOf(handlers);
        handlers.forEach((kind, binding) -> argsReaders.put(kind, Json.MAPPER.readerFor(binding.argsType())));
        this.resumableKindsJson = Json.write(handlers.entrySet().stream()
                .filter(entry -> entry.getValue().handler() instanceof ResumableHandler<?>)
                .map(Map.Entry::getKey).sorted().toList());
        this.counters = counters;
        this.outcomes = new Outcomes(config.retryPolicy());
        this.lostClaims = new LostClaims(store);
        this.completer = new Completer(stores, signals, registry, counters, this::settled);
        this.leaseKeeper = new LeaseKeeper(config, stores, registry, counters, this, lostClaims);
        config.queues().forEach((queue, concurrency) ->
                fetchers.add(new QueueFetcher(queue, concurrency, config.pollInterval(), this)));
    }

    public void start() {
        registerWorker();
        completer.start();
        leaseKeeper.start();
        fetchers.forEach(QueueFetcher::start);
        LOG.info("skiplock worker {} started on queues {}", config.workerId(), config.queues());
    }

    /** Wakes the fetcher of {@code queue}, if this instance works it. */
    public void wake(String queue) {
        for (QueueFetcher fetcher : fetchers) {
            if (fetcher.queue().equals(queue)) {
                fetcher.wake();
            }
        }
    }

    /** Orphans wait in {@code queue} (this node's reaper, or another node's by notification). */
    public void orphansAvailable(String queue) {
        for (QueueFetcher fetcher : fetchers) {
            if (fetcher.queue().equals(queue)) {
                fetcher.adoptionDue();
            }
        }
    }

    /** Notifications may have been missed: every fetcher looks for work and orphans now. */
    public void resync() {
        fetchers.forEach(QueueFetcher::adoptionDue);
    }

    /** A cancel was recorded for a job this instance may be running: stop it now rather than at the next heartbeat. */
    public void cancelLocal(UUID jobId) {
        registry.runningOf(jobId).forEach(execution -> stop(execution, Execution.StopReason.CANCEL));
    }

    @Override
    public List<Claimed> adopt(String queue, int limit) {
        return store.adoptOrphans(claimParams(queue), config.leaseTtl().toMillis(), limit);
    }

    /**
     * Claims with a fresh token. If the answer is lost (the connection dropped after the claim
     * committed), the jobs are leased to this worker, which does not run them: they are given back
     * at once without using their attempt, or by the next heartbeat if the database is unreachable.
     */
    @Override
    public List<Claimed> claim(String queue, int limit) {
        ClaimParams claim = claimParams(queue);
        List<Claimed> jobs;
        try {
            jobs = store.claim(claim, limit);
        } catch (RuntimeException e) {
            lostClaims.giveBack(claim);
            throw e;
        }
        if (!jobs.isEmpty()) {
            counters.claimed.add(jobs.size());
            counters.claimStatements.increment();
        }
        return jobs;
    }

    private ClaimParams claimParams(String queue) {
        return new ClaimParams(queue, config.workerId(), config.hostId(), UUID.randomUUID(), config.leaseTtl().toMillis(),
                resumableKindsJson);
    }

    /**
     * Takes over an orphan (DESIGN §2, adoption) under a new token. An execution of the same job
     * that this worker still runs (it was paused past its lease, then reaped) is stopped first: its
     * lease is gone. A {@link ResumableHandler}'s execution may have outlived its worker: it is
     * resumed (finished → its recorded outcome, running → waited for, not found → retried or
     * failed); a cancel already requested or a timeout already passed stops it as soon as it is
     * found. Any other handler ran in-process and died with its worker's JVM, so the attempt is
     * "not found" at once.
     */
    @Override
    public void takeOver(Claimed orphan, QueueFetcher fetcher) {
        counters.adopted.increment();
        Job job = orphan.job();
        registry.runningOf(job.id()).forEach(stale -> stop(stale, Execution.StopReason.LEASE_LOST));
        Execution execution = new Execution(orphan, fetcher::releaseSlot);
        registry.add(execution);
        HandlerBinding<?> binding = handlers.get(job.kind());
        if (binding != null && binding.handler() instanceof ResumableHandler<?>) {
            LOG.info("adopting job {} attempt {}: resuming its execution", job.id(), job.attempt());
            if (job.cancelRequested()) {
                stop(execution, Execution.StopReason.CANCEL);
            }
            scheduleTimeout(execution);
            handlerThreads.execute(() -> execute(execution, true));
            return;
        }
        execution.finishByHandler();
        completer.submit(execution, outcomes.orphaned(execution, retryPolicyOf(job)));
        execution.releaseSlot();
    }

    @Override
    public void run(Claimed claimed, QueueFetcher fetcher) {
        Execution execution = new Execution(claimed, fetcher::releaseSlot);
        registry.add(execution);
        scheduleTimeout(execution);
        handlerThreads.execute(() -> execute(execution, false));
    }

    /**
     * The job's timeout counts from its start: an adopted execution gets what its first worker
     * left, measured by the database clock (the worker's own clock may differ from it).
     */
    private void scheduleTimeout(Execution execution) {
        Job job = execution.job();
        Integer timeoutSeconds = job.timeoutSeconds() != null ? job.timeoutSeconds()
                : config.defaultTimeout() == null ? null : (int) config.defaultTimeout().toSeconds();
        if (timeoutSeconds == null) {
            return;
        }
        long elapsedMillis = execution.elapsedMillis();
        execution.setTimeout(leaseKeeper.schedule(() -> stop(execution, Execution.StopReason.TIMEOUT),
                Math.max(0, timeoutSeconds * 1000L - elapsedMillis), TimeUnit.MILLISECONDS));
    }

    private void execute(Execution execution, boolean resume) {
        execution.bindThread(Thread.currentThread());
        Job job = execution.job();
        if (!resume && execution.stopRequested()) {
            return; // stopped before it started (cancel, timeout): nothing ran, the stop wrote the outcome
        }
        Completion completion = resume ? resumeHandler(execution, job) : runHandler(execution, job);
        if (execution.finishByHandler()) {
            completer.submit(execution, completion);
            execution.releaseSlot();
        }
        Thread.interrupted(); // a stop that lost the race may have interrupted us; do not leak it
    }

    private Completion runHandler(Execution execution, Job job) {
        HandlerBinding<?> binding = handlers.get(job.kind());
        if (binding == null) {
            return outcomes.permanentFailure(execution, "no handler for kind " + job.kind());
        }
        try {
            return invoke(binding, execution, job);
        } catch (ArgsException e) {
            return outcomes.permanentFailure(execution, e.getMessage());
        } catch (Throwable error) {
            return outcomes.fromException(execution, error, binding.retryPolicy());
        }
    }

    private Completion resumeHandler(Execution execution, Job job) {
        HandlerBinding<?> binding = handlers.get(job.kind());
        try {
            return resume(binding, execution, job);
        } catch (ArgsException e) {
            return outcomes.permanentFailure(execution, e.getMessage());
        } catch (Throwable error) {
            return outcomes.fromException(execution, error, binding.retryPolicy());
        }
    }

    @SuppressWarnings("unchecked") // takeOver resumes only bindings whose handler is a ResumableHandler of A
    private <A> Completion resume(HandlerBinding<A> binding, Execution execution, Job job) throws Exception {
        A args = readArgs(binding, job);
        ResumableHandler<A> handler = (ResumableHandler<A>) binding.handler();
        Optional<JobOutcome> outcome = handler.resume(new ExecutionContext<>(args, execution, stores, completer));
        if (outcome.isEmpty()) {
            LOG.info("job {} attempt {}: its execution is gone", job.id(), job.attempt());
            return outcomes.orphaned(execution, binding.retryPolicy());
        }
        counters.resumed.increment();
        return outcomes.fromHandler(execution, outcome.get(), binding.retryPolicy());
    }

    /** An outcome became durable: a resumable handler may drop what it kept for adoption. */
    private void settled(Execution execution) {
        Job job = execution.job();
        HandlerBinding<?> binding = handlers.get(job.kind());
        if (binding != null && binding.handler() instanceof ResumableHandler<?> resumable) {
            try {
                resumable.settled(job.id(), execution.executionId());
            } catch (RuntimeException e) {
                LOG.warn("{} could not clean up after job {}: {}", job.kind(), job.id(), e.getMessage());
            }
        }
    }

    private <A> Completion invoke(HandlerBinding<A> binding, Execution execution, Job job) throws Exception {
        A args = readArgs(binding, job);
        JobContext<A> context = new ExecutionContext<>(args, execution, stores, completer);
        JobOutcome outcome = binding.handler().handle(context);
        return outcomes.fromHandler(execution, outcome, binding.retryPolicy());
    }

    private <A> A readArgs(HandlerBinding<A> binding, Job job) {
        try {
            return binding.argsType().cast(argsReaders.get(job.kind()).readValue(job.args()));
        } catch (IOException | IllegalArgumentException | ClassCastException e) {
            throw new ArgsException("args do not match " + binding.argsType().getSimpleName() + " for kind "
                    + job.kind() + ": " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /** Stops an execution for {@code reason}; only the first stop or finish of an attempt counts. */
    void stop(Execution execution, Execution.StopReason reason) {
        if (!execution.stop(reason)) {
            return;
        }
        Job job = execution.job();
        switch (reason) {
            case CANCEL -> completer.submit(execution, outcomes.cancelled(execution));
            case TIMEOUT -> completer.submit(execution, outcomes.timedOut(execution, retryPolicyOf(job)));
            case LEASE_LOST -> {
                counters.leasesLost.increment();
                registry.remove(execution);
                LOG.warn("job {} attempt {} lost its lease; its execution was stopped", job.id(), job.attempt());
            }
            case SHUTDOWN -> {
                return; // the slot and the lease are given back by close()
            }
        }
        execution.releaseSlot();
    }

    private dev.skiplock.RetryPolicy retryPolicyOf(Job job) {
        HandlerBinding<?> binding = handlers.get(job.kind());
        return binding == null ? null : binding.retryPolicy();
    }

    /**
     * Graceful shutdown: stop claiming, let running jobs finish until the deadline, then interrupt
     * the rest and release their leases so another worker takes them at once.
     */
    public void close() throws InterruptedException {
        for (QueueFetcher fetcher : fetchers) {
            fetcher.stop();
        }
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        while (registry.runningCount() > 0 && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
        releaseStillRunning();
        lostClaims.retry();
        completer.stop();
        leaseKeeper.stop();
        handlerThreads.shutdownNow();
        try {
            stores.workers().stop(config.workerId());
        } catch (RuntimeException e) {
            LOG.warn("could not mark worker {} stopped: {}", config.workerId(), e.getMessage());
        }
        LOG.info("skiplock worker {} stopped", config.workerId());
    }

    private void releaseStillRunning() {
        List<Execution> stopped = new ArrayList<>();
        for (Execution execution : registry.snapshot()) {
            if (execution.stop(Execution.StopReason.SHUTDOWN)) {
                stopped.add(execution);
            }
        }
        if (stopped.isEmpty()) {
            return;
        }
        try {
            int released = store.release(stopped.stream().map(Execution::attempt).toList());
            counters.released.add(released);
            stopped.forEach(this::settled); // each runs again as a new attempt
            LOG.info("released {} running jobs at shutdown", released);
        } catch (RuntimeException e) {
            LOG.warn("could not release {} jobs at shutdown; their leases will expire and be reaped: {}",
                    stopped.size(), e.getMessage());
        }
        stopped.forEach(registry::remove);
    }

    private void registerWorker() {
        String id = config.workerId();
        String host = config.hostId();
        int concurrency = config.queues().values().stream().mapToInt(Integer::intValue).sum();
        stores.workers().register(id, host, ProcessHandle.current().pid(),
                List.copyOf(new java.util.TreeSet<>(config.queues().keySet())), concurrency);
    }

    /** Args that cannot be read into the handler's type: the job can never succeed as enqueued. */
    private static final class ArgsException extends RuntimeException {
        ArgsException(String message) {
            super(message);
        }
    }
}
