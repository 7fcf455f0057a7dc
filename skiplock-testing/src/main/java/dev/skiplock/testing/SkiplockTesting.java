package dev.skiplock.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skiplock.Job;
import dev.skiplock.JobClient;
import dev.skiplock.JobEvent;
import dev.skiplock.JobNotFoundException;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs jobs in a test through the real engine: a worker built from your {@link Skiplock.Builder}
 * (its handlers, data source, hook and config; other queues; a worker id of its own; polling every
 * 50 ms at most) claims them with the real claim statement, runs the real handlers and writes the
 * outcome with the real completer, then closes. Nothing runs in the background between calls.
 *
 * <p>Time: which jobs are available is decided by the database's clock ({@code available_at}
 * compared with its {@code now()}). {@link #drain} runs what the database finds available;
 * {@link #runNow} makes one job available now; {@link #runDue} lets a {@link TestClock} say what
 * is due, and says exactly what it moves. Under {@link #drain} and {@link #runNow} retry delays,
 * snoozes and waits pass in real time: one shorter than the call itself may run again within it;
 * {@link #runDue} holds them back until its clock reaches them (unless shorter than a round).
 *
 * <p>The statements behind this class are {@code postgres.sql} / {@code sqlite.sql} of this package.
 * Not thread-safe per builder (it sets the builder's config for the worker and puts it back).
 */
public final class SkiplockTesting {
    /** How long one call waits at most for jobs to finish before it fails the test. */
    public static final Duration MAX_WAIT = Duration.ofMinutes(1);
    private static final Duration WORKER_POLL = Duration.ofMillis(50);
    private static final long IDLE_CHECK_NANOS = Duration.ofMillis(10).toNanos();
    private static final int MAX_ROUNDS = 1_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * The jobs {@link #runDue} rescheduled by a test's clock, with their queues: held back again by
     * the next call while not due by its clock (their times may lie in the database's past).
     */
    private static final Map<UUID, String> RESCHEDULED = new java.util.concurrent.ConcurrentHashMap<>();

    private SkiplockTesting() {
    }

    /**
     * Settings for tests: the defaults, except polling every 50 ms and a 5 s shutdown. Add queues
     * (and a {@link TestClock} as {@code clock}, for the worker's own time) and build.
     */
    public static SkiplockConfig.Builder config() {
        return SkiplockConfig.builder().pollInterval(WORKER_POLL).shutdownTimeout(Duration.ofSeconds(5));
    }

    /** {@link #runNow(Skiplock.Builder, Job)} for a job of the default tenant, by id. */
    public static Job runNow(Skiplock.Builder app, UUID jobId) {
        try (Skiplock reader = worker(app, Map.of())) {
            return runAlone(app, reader, reader.get(jobId).orElseThrow(() -> new JobNotFoundException(jobId)));
        }
    }

    /**
     * Runs one attempt of a queued job now and returns the job as that attempt left it: terminal
     * ({@code succeeded} with its {@code result}, {@code failed} with its {@code lastError}, …) or
     * {@code queued} again (a retry, a snooze, a durable wait). A job not yet available is made
     * available now ({@code available_at} only; a durable wait it is in still ends at its time).
     * The worker serves the job's queue with one slot; the other jobs of that queue available then
     * are held back meanwhile (their {@code available_at} moved 1000 years ahead and back after),
     * so this job runs alone, unless its handler enqueues into its own queue a job available at
     * once (the worker may claim it before it stops). A retry delay or snooze it gets counts
     * from the database's now: {@link #runDue} counts them from a {@link TestClock}.
     *
     * @throws IllegalStateException if the job is not {@code queued}, or its queue is paused
     * @throws AssertionError        if the attempt does not end within {@link #MAX_WAIT}
     */
    public static Job runNow(Skiplock.Builder app, Job job) {
        try (Skiplock reader = worker(app, Map.of())) {
            return runAlone(app, reader, job);
        }
    }

    /** {@link #runNow}, with {@code reader} (an instance serving no queue) for the statements around the worker. */
    private static Job runAlone(Skiplock.Builder app, Skiplock reader, Job job) {
        Job before = reader.tenant(job.tenant()).get(job.id()).orElseThrow(() -> new JobNotFoundException(job.id()));
        if (before.status() != JobStatus.QUEUED) {
            throw new IllegalStateException("runNow: job " + job.id() + " is " + before.status().wireName()
                    + "; only a queued job can run");
        }
        if (reader.pausedQueues().contains(before.queue())) {
            // no worker claims from a paused queue: the attempt would wait out MAX_WAIT
            throw new IllegalStateException("runNow: queue " + before.queue() + " of job " + job.id()
                    + " is paused; resume it (resumeQueue) to run its jobs");
        }
        Run run = new Run(reader, Map.of(job.queue(), 1));
        Map<String, Object> target = Map.of("queue", job.queue(), "id", run.sql.id(job.id()));
        run.sql.update(reader.dataSource(), "make_available", target);
        String held = run.json(run.sql.query(reader.dataSource(), "available_others", target,
                row -> row.getString("id")));
        run.sql.update(reader.dataSource(), "hold_jobs", Map.of("ids", held));
        try (Skiplock worker = worker(app, Map.of(job.queue(), 1))) {
            return attemptEnded(worker.start().tenant(job.tenant()), before);
        } finally {
            run.sql.update(reader.dataSource(), "release_jobs_held", Map.of("ids", held));
        }
    }

    /**
     * Runs every job of {@code queues} (none given: the builder's configured queues) that is
     * available, and those that become available meanwhile (retries due, dependents released, jobs
     * the handlers enqueue), until none of those queues has a job running or available. Each queue
     * gets the builder's concurrency for it, else one slot. Returns the jobs it claimed, as they
     * ended up, in the order they were last claimed.
     *
     * @throws AssertionError if jobs still run or are available after {@link #MAX_WAIT}
     */
    public static List<Job> drain(Skiplock.Builder app, String... queues) {
        Map<String, Integer> served = served(app, queues);
        try (Skiplock worker = worker(app, served)) {
            Run run = new Run(worker, served);
            Instant since = run.now();
            worker.start();
            run.awaitIdle();
            return run.jobs(run.startedSince(since));
        }
    }

    /**
     * Runs what is due by {@code clock}, then drains: round after round until a round finds nothing
     * due and runs nothing, for jobs of {@code queues} (none given: the builder's configured queues):
     * <ol>
     * <li>a queued job whose {@code available_at} is at or before the clock's instant becomes
     * available now (its {@code available_at} is set to the database's now), and a durable wait of
     * such a job (a sleep, a signal's timeout: {@code wake_at}) that ends by then ends now;</li>
     * <li>{@link #drain} runs them, and whatever else the database finds available;</li>
     * <li>a job claimed in that round that is queued again was given a time by the database (retry
     * backoff, snooze, wait: its now plus the delay): that time, and the {@code wake_at} of the
     * waits it recorded, are moved by (clock's instant − database's now), so the delay counts from
     * the test's clock. From then on such a job is held back (1000 years ahead while a call runs)
     * until the clock reaches its time, also in later calls: with the clock behind the database's,
     * its time lies in the database's past, where the worker would claim it at once. A delay
     * shorter than a round (the worker's 50 ms poll and a statement) may still end before the
     * hold, and the job run again in that round.</li>
     * </ol>
     * Nothing else moves: not a job of another queue, not one that did not run (its
     * {@code available_at} is compared with the clock as it is: a {@code runAt} your code computed
     * from the same clock is due when the clock reaches it), not leases, timeouts (the worker's
     * {@code SkiplockConfig.clock}), {@code requested_at}, {@code started_at}, {@code finished_at},
     * retention or cron slots. Returns the jobs it claimed, as they ended up.
     *
     * @throws AssertionError if a round's jobs do not finish within {@link #MAX_WAIT}, or jobs are
     *                        still due after 1,000 rounds (a job snoozing for no time)
     */
    public static List<Job> runDue(Skiplock.Builder app, TestClock clock, String... queues) {
        Map<String, Integer> served = served(app, queues);
        try (Skiplock reader = worker(app, Map.of())) {
            Run run = new Run(reader, served);
            Map<UUID, String> held = run.holdRescheduled(clock.instant());
            Map<UUID, String> claimed;
            try {
                claimed = runRounds(app, clock, served, run, held);
            } finally {
                // once the worker has stopped (it would claim them at once): back to their times by
                // the test's clock, to be held again by the next call (remembered first, whatever
                // the release meets)
                RESCHEDULED.putAll(held);
                run.sql.update(reader.dataSource(), "release_jobs_held", Map.of("ids", run.json(ids(held))));
            }
            return run.jobs(claimed);
        }
    }

    /** {@link #runDue}'s rounds, on a worker of their own; returns the jobs claimed (id → tenant). */
    private static Map<UUID, String> runRounds(Skiplock.Builder app, TestClock clock, Map<String, Integer> served,
            Run run, Map<UUID, String> held) {
        try (Skiplock worker = worker(app, served)) {
            Map<UUID, String> claimed = new LinkedHashMap<>();
            Instant since = run.now();
            worker.start();
            for (int round = 0; round < MAX_ROUNDS; round++) {
                Instant testNow = clock.instant();
                // Waits end before their jobs become available: the running worker may claim a job the
                // moment it is, and its replay must find the wait over.
                run.update("end_due_waits", Map.of("test_now", run.sql.time(testNow)));
                run.releaseHeldDue(held, testNow);
                int due = run.update("make_due", Map.of("test_now", run.sql.time(testNow)));
                run.awaitIdle();
                Map<UUID, String> ran = run.startedSince(since);
                Instant databaseNow = run.now();
                long shift = Duration.between(databaseNow, testNow).toMillis();
                Map<String, Object> shifted = Map.of("since", run.sql.time(since), "shift_ms", shift);
                since = databaseNow;
                held.putAll(run.held("shift_and_hold_rescheduled", shifted));
                run.update("shift_new_waits", shifted);
                claimed.keySet().removeAll(ran.keySet());
                claimed.putAll(ran);
                if (due == 0 && ran.isEmpty()) {
                    return claimed;
                }
            }
            throw new AssertionError("runDue: jobs of " + served.keySet() + " still due after " + MAX_ROUNDS
                    + " rounds (a job that snoozes for no time?)");
        }
    }

    private static List<String> ids(Map<UUID, String> jobs) {
        return jobs.keySet().stream().map(UUID::toString).toList();
    }

    /** Follows {@code before}'s job until the attempt after {@code before.attempt()} ends. */
    private static Job attemptEnded(JobClient client, Job before) {
        long deadline = System.nanoTime() + MAX_WAIT.toNanos();
        long afterSeq = 0;
        try {
            while (System.nanoTime() - deadline < 0) {
                Duration left = Duration.ofNanos(deadline - System.nanoTime());
                for (JobEvent event : client.awaitEvents(before.id(), afterSeq, 1000, left)) {
                    afterSeq = event.seq();
                    if ("status".equals(event.type()) && event.attempt() > before.attempt()
                            && !JobStatus.RUNNING.wireName().equals(event.status())) {
                        return client.get(before.id()).orElseThrow(() -> new JobNotFoundException(before.id()));
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("runNow: interrupted while job " + before.id() + " ran", e);
        }
        throw new AssertionError("runNow: attempt " + (before.attempt() + 1) + " of job " + before.id()
                + " did not end within " + MAX_WAIT + "; the job is " + client.get(before.id()).map(Job::status));
    }

    /** The queues to serve, each with the builder's concurrency for it, else 1. */
    private static Map<String, Integer> served(Skiplock.Builder app, String... queues) {
        Map<String, Integer> configured = app.config().queues();
        if (queues.length == 0 && configured.isEmpty()) {
            throw new IllegalArgumentException("queues: name the queues to run, or configure them on the builder");
        }
        if (queues.length == 0) {
            return configured;
        }
        Map<String, Integer> served = new LinkedHashMap<>();
        for (String queue : queues) {
            served.put(queue, configured.getOrDefault(queue, 1));
        }
        return served;
    }

    /** An instance built from {@code app} with its config, serving {@code queues}; the builder is left as it was. */
    private static Skiplock worker(Skiplock.Builder app, Map<String, Integer> queues) {
        SkiplockConfig base = app.config();
        String suffix = ":test-" + UUID.randomUUID().toString().substring(0, 8);
        String workerId = base.workerId().substring(0, Math.min(base.workerId().length(), 128 - suffix.length()));
        Duration poll = base.pollInterval().compareTo(WORKER_POLL) < 0 ? base.pollInterval() : WORKER_POLL;
        app.config(new SkiplockConfig(workerId + suffix, base.hostId(), queues, base.leaseTtl(),
                base.heartbeatInterval(), base.reaperInterval(), poll, base.shutdownTimeout(),
                base.defaultMaxAttempts(), base.defaultTimeout(), base.retryPolicy(), base.migrate(),
                base.retention(), base.pruneInterval(), base.clock(), base.maxStepsPerJob(),
                base.maxStepOutputBytes(), base.claimBatchSize()));
        try {
            return app.build();
        } finally {
            app.config(base);
        }
    }

    /**
     * One call's statements and the queues it serves, run through {@code instance}: the call's
     * worker, or for {@link #runDue} an instance serving no queue, which outlives its worker.
     */
    private static final class Run {
        private final Skiplock instance;
        private final TestSql sql;
        private final String queues;
        private final long deadline = System.nanoTime() + MAX_WAIT.toNanos();

        Run(Skiplock instance, Map<String, Integer> served) {
            this.instance = instance;
            this.sql = TestSql.of(instance.driverName());
            this.queues = json(List.copyOf(served.keySet()));
        }

        String json(List<String> names) {
            try {
                return JSON.writeValueAsString(names);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }

        Instant now() {
            return sql.now(instance.dataSource());
        }

        int update(String statement, Map<String, Object> parameters) {
            Map<String, Object> all = new LinkedHashMap<>(parameters);
            all.put("queues", queues);
            return sql.update(instance.dataSource(), statement, all);
        }

        /** Waits until no job of the queues runs or is available (checked every 10 ms). */
        void awaitIdle() {
            while (sql.query(instance.dataSource(), "busy_jobs", Map.of("queues", queues), row -> row.getLong(1))
                    .getFirst() > 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("jobs of " + queues + " still run or are available after " + MAX_WAIT);
                }
                LockSupport.parkNanos(IDLE_CHECK_NANOS);
                if (Thread.currentThread().isInterrupted()) {
                    throw new AssertionError("interrupted while jobs of " + queues + " ran");
                }
            }
        }

        /**
         * Holds back the jobs an earlier call rescheduled (of this call's queues, in this call's
         * database: the ids are the jobs' own) that are still queued and not due by {@code testNow};
         * returns them (id → queue). Those of this database it does not hold (due, run, deleted) are
         * forgotten; so is one that comes back due later.
         */
        Map<UUID, String> holdRescheduled(Instant testNow) {
            List<String> candidates = new ArrayList<>();
            RESCHEDULED.forEach((id, queue) -> {
                if (queues.contains(JSON.valueToTree(queue).toString())) {
                    candidates.add(id.toString());
                }
            });
            if (candidates.isEmpty()) {
                return new LinkedHashMap<>();
            }
            Map<UUID, String> held = held("hold_rescheduled_not_due",
                    Map.of("ids", json(candidates), "test_now", sql.time(testNow)));
            sql.query(instance.dataSource(), "jobs_present", Map.of("ids", json(candidates)), row -> sql.id(row, "id"))
                    .stream().filter(id -> !held.containsKey(id)).forEach(RESCHEDULED::remove);
            return held;
        }

        /** Brings back to their times the jobs of {@code held} due by {@code testNow}, and forgets them. */
        void releaseHeldDue(Map<UUID, String> held, Instant testNow) {
            if (!held.isEmpty()) {
                held("release_held_due", Map.of("ids", json(ids(held)), "test_now", sql.time(testNow)))
                        .keySet().forEach(id -> {
                            held.remove(id);
                            RESCHEDULED.remove(id);
                        });
            }
        }

        /** Runs {@code statement}, which returns the jobs it moved: id → queue. */
        Map<UUID, String> held(String statement, Map<String, Object> parameters) {
            Map<String, Object> all = new LinkedHashMap<>(parameters);
            all.put("queues", queues);
            Map<UUID, String> moved = new LinkedHashMap<>();
            sql.query(instance.dataSource(), statement, all, row -> moved.put(sql.id(row, "id"), row.getString("queue")));
            return moved;
        }

        /** The jobs claimed since {@code since}: id → tenant. */
        Map<UUID, String> startedSince(Instant since) {
            Map<UUID, String> started = new LinkedHashMap<>();
            sql.query(instance.dataSource(), "started_since", Map.of("queues", queues, "since", sql.time(since)),
                    row -> started.put(sql.id(row, "id"), row.getString("tenant")));
            return started;
        }

        List<Job> jobs(Map<UUID, String> tenants) {
            List<Job> jobs = new ArrayList<>();
            tenants.forEach((id, tenant) -> instance.tenant(tenant).get(id).ifPresent(jobs::add));
            return jobs;
        }
    }
}
