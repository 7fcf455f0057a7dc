package dev.skiplock;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Long-lived settings of one {@link Skiplock} instance, validated when built.
 *
 * @param workerId           identity written to {@code locked_by}; default {@code host:pid:random}, unique per instance
 * @param hostId             the host this instance runs on, as the worker registry and command runs know it: a
 *                           command job's run lives there, so only workers of the same host id adopt it while
 *                           any of them is alive (default: the host name)
 * @param queues             queue name → number of jobs this instance runs at once; empty = enqueue-only client
 * @param leaseTtl           how long a claim stays valid without a heartbeat (default 30 s)
 * @param heartbeatInterval  how often held leases are extended (default 10 s; must be below {@code leaseTtl})
 * @param reaperInterval     how often expired leases are cleared (default 15 s)
 * @param pollInterval       how often an idle claimer looks for work without a wake-up (default 1 s)
 * @param shutdownTimeout    how long {@link Skiplock#close()} lets running jobs finish before releasing them (default 10 s)
 * @param defaultMaxAttempts attempts of a job that does not say (default 5)
 * @param defaultTimeout     per-attempt limit of a job that does not say; {@code null} = none (the default)
 * @param retryPolicy        backoff between attempts (default {@link RetryPolicy#DEFAULT})
 * @param migrate            apply schema migrations on start (default true)
 * @param retention          finished jobs older than this are deleted by running workers (default 7 days),
 *                           and so are cron slot records older than this or a day, whichever is longer
 *                           (see {@link JobClient#enqueueScheduled}), and the registry's rows of workers stopped
 *                           or silent for as long ({@link Skiplock#workers()}); {@code null} keeps all three forever
 * @param pruneInterval      how often a running worker deletes what is past {@code retention} (default 60 s;
 *                           at least 100 ms): a job is deleted between {@code retention} and
 *                           {@code retention + pruneInterval} after it finished, while a worker runs and keeps up
 *                           (a run deletes up to 100,000; one enqueued on a host whose clock ran more than a
 *                           minute ahead of the pruning worker's: up to that excess later, since the prune walks
 *                           the ids, which carry the enqueuing host's wall time, only that far)
 * @param clock              the worker's own time (default {@link Clock#systemUTC()}): when an execution's timeout
 *                           is due (its remaining time is taken from the database at claim or adoption, then
 *                           counted on this clock), when a busy claimer looks for orphans again (once per
 *                           {@code pollInterval}) and when a claim whose answer was lost is no longer given back;
 *                           also the time of the server's cron schedules and of in-memory jobs. With the default, this elapsed time is measured on the JVM's monotonic timer (an NTP
 *                           step or a clock set by hand moves no timeout); a clock given here is used as is.
 *                           Leases, retention ages and backoff delays stay on the database's time (retention's
 *                           walk over the ids stops by wall time); waits of a thread
 *                           (shutdown, {@link JobClient#awaitEvents}) are measured by the JVM's monotonic timer
 * @param maxStepsPerJob     how many checkpoints (steps, sleeps, signal waits: {@link JobContext#step}) one job may
 *                           record (default 1,000; 1 to 100,000); one more fails the step with an
 *                           {@link IllegalStateException} naming the limit
 * @param maxStepOutputBytes the largest output of one step, as JSON in UTF-8 (default 1 MiB; 1 byte to 16 MiB); a
 *                           larger output fails the step with an {@link IllegalArgumentException} naming the limit
 * @param claimBatchSize     the most jobs one claim statement takes (default 100; 1 to 10,000): a claimer takes
 *                           as many as its queue has free slots (the queue's concurrency: how many handlers run at
 *                           once), at most this many per statement
 */
public record SkiplockConfig(
        String workerId,
        String hostId,
        Map<String, Integer> queues,
        Duration leaseTtl,
        Duration heartbeatInterval,
        Duration reaperInterval,
        Duration pollInterval,
        Duration shutdownTimeout,
        int defaultMaxAttempts,
        Duration defaultTimeout,
        RetryPolicy retryPolicy,
        boolean migrate,
        Duration retention,
        Duration pruneInterval,
        Clock clock,
        int maxStepsPerJob,
        int maxStepOutputBytes,
        int claimBatchSize) {

    public static final int MAX_CONCURRENCY = 10_000;
    public static final int MAX_STEPS_PER_JOB_LIMIT = 100_000;
    public static final int MAX_STEP_OUTPUT_BYTES_LIMIT = 16 << 20;

    public SkiplockConfig {
        Names.check("workerId", workerId);
        Names.check("hostId", hostId);
        queues = Map.copyOf(queues);
        queues.forEach((queue, concurrency) -> {
            Names.check("queue", queue);
            if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
                throw new IllegalArgumentException("concurrency: must be between 1 and " + MAX_CONCURRENCY
                        + " for queue " + queue + ", got " + concurrency);
            }
        });
        // First: a longer duration overflows toMillis (ChronoUnit.FOREVER) or, as PostgreSQL's
        // now() minus the retention, leaves timestamp's range: the prune failed at every run.
        atMostACentury("leaseTtl", leaseTtl);
        atMostACentury("heartbeatInterval", heartbeatInterval);
        atMostACentury("reaperInterval", reaperInterval);
        atMostACentury("pollInterval", pollInterval);
        atMostACentury("shutdownTimeout", shutdownTimeout);
        atMostACentury("defaultTimeout", defaultTimeout);
        atMostACentury("retention", retention);
        atMostACentury("pruneInterval", pruneInterval);
        positive("leaseTtl", leaseTtl);
        positive("heartbeatInterval", heartbeatInterval);
        positive("reaperInterval", reaperInterval);
        positive("pollInterval", pollInterval);
        if (shutdownTimeout == null || shutdownTimeout.isNegative()) {
            throw new IllegalArgumentException("shutdownTimeout: must be zero or positive");
        }
        if (heartbeatInterval.compareTo(leaseTtl) >= 0) {
            throw new IllegalArgumentException("heartbeatInterval: must be shorter than leaseTtl ("
                    + heartbeatInterval + " >= " + leaseTtl + ")");
        }
        if (defaultMaxAttempts < 1 || defaultMaxAttempts > JobRequest.MAX_ATTEMPTS_LIMIT) {
            throw new IllegalArgumentException("defaultMaxAttempts: must be between 1 and "
                    + JobRequest.MAX_ATTEMPTS_LIMIT + ", got " + defaultMaxAttempts);
        }
        if (defaultTimeout != null && defaultTimeout.toMillis() < 1000) {
            throw new IllegalArgumentException("defaultTimeout: must be at least 1 second");
        }
        if (retryPolicy == null) {
            throw new IllegalArgumentException("retryPolicy: is required");
        }
        if (retention != null && retention.toMillis() < 1000) {
            throw new IllegalArgumentException("retention: must be at least 1 second, or null to keep jobs forever");
        }
        if (pruneInterval == null || pruneInterval.toMillis() < 100) {
            throw new IllegalArgumentException("pruneInterval: must be at least 100 ms, got " + pruneInterval);
        }
        if (clock == null) {
            throw new IllegalArgumentException("clock: is required");
        }
        if (maxStepsPerJob < 1 || maxStepsPerJob > MAX_STEPS_PER_JOB_LIMIT) {
            throw new IllegalArgumentException("maxStepsPerJob: must be between 1 and " + MAX_STEPS_PER_JOB_LIMIT
                    + ", got " + maxStepsPerJob);
        }
        if (claimBatchSize < 1 || claimBatchSize > MAX_CONCURRENCY) {
            throw new IllegalArgumentException("claimBatchSize: must be between 1 and " + MAX_CONCURRENCY
                    + ", got " + claimBatchSize);
        }
        if (maxStepOutputBytes < 1 || maxStepOutputBytes > MAX_STEP_OUTPUT_BYTES_LIMIT) {
            throw new IllegalArgumentException("maxStepOutputBytes: must be between 1 and "
                    + MAX_STEP_OUTPUT_BYTES_LIMIT + ", got " + maxStepOutputBytes);
        }
    }

    /** The longest duration a setting takes: a century. */
    public static final Duration MAX_DURATION = Duration.ofDays(36_500);

    private static void atMostACentury(String field, Duration value) {
        if (value != null && value.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(field + ": must be at most 36500 days (a century), got " + value);
        }
    }

    private static void positive(String field, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(field + ": must be positive, got " + value);
        }
    }

    /**
     * The bound on how long a crashed worker's job stays stuck before another worker can claim it:
     * {@code leaseTtl + reaperInterval + pollInterval} (DESIGN §2).
     */
    public Duration rescueBound() {
        return leaseTtl.plus(reaperInterval).plus(pollInterval);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Mutable builder; {@link #build()} validates everything at once. Not thread-safe. */
    public static final class Builder {
        private String workerId = defaultWorkerId();
        private String hostId = defaultHostId();
        private final Map<String, Integer> queues = new LinkedHashMap<>();
        private Duration leaseTtl = Duration.ofSeconds(30);
        private Duration heartbeatInterval = Duration.ofSeconds(10);
        private Duration reaperInterval = Duration.ofSeconds(15);
        private Duration pollInterval = Duration.ofSeconds(1);
        private Duration shutdownTimeout = Duration.ofSeconds(10);
        private int defaultMaxAttempts = 5;
        private Duration defaultTimeout;
        private RetryPolicy retryPolicy = RetryPolicy.DEFAULT;
        private boolean migrate = true;
        private Duration retention = Duration.ofDays(7);
        private Duration pruneInterval = Duration.ofSeconds(60);
        private Clock clock = Clock.systemUTC();
        private int maxStepsPerJob = 1000;
        private int maxStepOutputBytes = 1 << 20;
        private int claimBatchSize = 100;

        public Builder workerId(String value) {
            workerId = value;
            return this;
        }

        /** See {@link SkiplockConfig#hostId()}. */
        public Builder hostId(String value) {
            hostId = value;
            return this;
        }

        /** Run jobs of {@code queue}, up to {@code concurrency} at once in this instance. */
        public Builder queue(String queue, int concurrency) {
            queues.put(queue, concurrency);
            return this;
        }

        public Builder leaseTtl(Duration value) {
            leaseTtl = value;
            return this;
        }

        public Builder heartbeatInterval(Duration value) {
            heartbeatInterval = value;
            return this;
        }

        public Builder reaperInterval(Duration value) {
            reaperInterval = value;
            return this;
        }

        public Builder pollInterval(Duration value) {
            pollInterval = value;
            return this;
        }

        public Builder shutdownTimeout(Duration value) {
            shutdownTimeout = value;
            return this;
        }

        public Builder defaultMaxAttempts(int value) {
            defaultMaxAttempts = value;
            return this;
        }

        public Builder defaultTimeout(Duration value) {
            defaultTimeout = value;
            return this;
        }

        public Builder retryPolicy(RetryPolicy value) {
            retryPolicy = value;
            return this;
        }

        public Builder migrate(boolean value) {
            migrate = value;
            return this;
        }

        /** How long finished jobs are kept; {@code null} keeps them forever. */
        public Builder retention(Duration value) {
            retention = value;
            return this;
        }

        /** See {@link SkiplockConfig#pruneInterval()}. */
        public Builder pruneInterval(Duration value) {
            pruneInterval = value;
            return this;
        }

        /** See {@link SkiplockConfig#clock()}; tests pass a clock they move by hand. */
        public Builder clock(Clock value) {
            clock = value;
            return this;
        }

        /** See {@link SkiplockConfig#claimBatchSize()}. */
        public Builder claimBatchSize(int value) {
            claimBatchSize = value;
            return this;
        }

        /** See {@link SkiplockConfig#maxStepsPerJob()}. */
        public Builder maxStepsPerJob(int value) {
            maxStepsPerJob = value;
            return this;
        }

        /** See {@link SkiplockConfig#maxStepOutputBytes()}. */
        public Builder maxStepOutputBytes(int value) {
            maxStepOutputBytes = value;
            return this;
        }

        public SkiplockConfig build() {
            return new SkiplockConfig(workerId, hostId, queues, leaseTtl, heartbeatInterval, reaperInterval, pollInterval,
                    shutdownTimeout, defaultMaxAttempts, defaultTimeout, retryPolicy, migrate, retention, pruneInterval,
                    clock, maxStepsPerJob, maxStepOutputBytes, claimBatchSize);
        }

        private static String defaultHostId() {
            try {
                String host = InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9_.-]", "_");
                return host.length() <= 128 ? host : host.substring(0, 128);
            } catch (Exception e) {
                return "localhost";
            }
        }

        private static String defaultWorkerId() {
            String host = defaultHostId();
            String pid = ManagementFactory.getRuntimeMXBean().getPid() + "";
            String random = UUID.randomUUID().toString().substring(0, 8);
            String id = host + ":" + pid + ":" + random;
            return id.length() <= 128 ? id : id.substring(id.length() - 128);
        }
    }
}
