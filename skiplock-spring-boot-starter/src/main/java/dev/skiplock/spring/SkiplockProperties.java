package dev.skiplock.spring;

import dev.skiplock.SkiplockConfig;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;

/**
 * The {@code skiplock.*} properties: the keys and meaning of the server's config file
 * ({@code skiplock.queues.<name>.concurrency}, {@code skiplock.retention.finished}) and of the
 * worker's flags ({@code --lease}, {@code --heartbeat}, {@code --reaper-interval},
 * {@code --poll-interval}, {@code --prune-interval}). Defaults are {@link SkiplockConfig}'s.
 * Durations take Spring's forms: {@code 30s}, {@code 500ms}, {@code 7d}; a bare number is seconds, as
 * in the config file and the flags (Spring's own default unit is milliseconds: {@code
 * shutdown-timeout=30} gave running jobs 30 ms). A queue name with a dot
 * goes in brackets ({@code skiplock.queues[mail.high].concurrency}; in YAML {@code "[mail.high]":}):
 * Spring reads {@code skiplock.queues.mail.high.concurrency} as queue {@code mail}, so an unknown
 * {@code skiplock.*} key stops the context, naming it, rather than leaving a queue unserved.
 */
@ConfigurationProperties(prefix = "skiplock", ignoreUnknownFields = false)
public class SkiplockProperties {
    /** The properties of the {@link SkiplockConfig} fields these set, for the messages of values it refuses. */
    private static final Map<String, String> PROPERTY_OF_FIELD = Map.of("leaseTtl", "skiplock.lease",
            "heartbeatInterval", "skiplock.heartbeat", "reaperInterval", "skiplock.reaper-interval",
            "pollInterval", "skiplock.poll-interval", "shutdownTimeout", "skiplock.shutdown-timeout",
            "defaultMaxAttempts", "skiplock.default-max-attempts", "retention", "skiplock.retention.finished",
            "pruneInterval", "skiplock.retention.prune-interval", "workerId", "skiplock.worker-id");
    /** Whether to build a Skiplock on the application's DataSource. */
    private boolean enabled = true;

    /** Queues this application's worker runs, by name; none: the application only enqueues. */
    private Map<String, Queue> queues = new LinkedHashMap<>();

    /** How long a claim stays valid without a heartbeat. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration lease = Duration.ofSeconds(30);

    /** How often held leases are extended; shorter than the lease. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration heartbeat = Duration.ofSeconds(10);

    /** How often expired leases (of workers that died) are cleared. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration reaperInterval = Duration.ofSeconds(15);

    /** How often an idle worker looks for work without a wake-up. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration pollInterval = Duration.ofSeconds(1);

    /** How long running jobs may finish when the context closes; the rest are released (queued again). */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration shutdownTimeout = Duration.ofSeconds(10);

    /** Whether to apply schema migrations when the context starts. */
    private boolean migrate = true;

    /** Attempts of a job that does not say. */
    private int defaultMaxAttempts = 5;

    /** Identity of this worker in the registry and in locked_by; default host:pid:random. */
    private String workerId;

    private final Retention retention = new Retention();

    /** The settings these properties describe, validated by {@link SkiplockConfig}. */
    public SkiplockConfig toConfig() {
        SkiplockConfig.Builder builder = SkiplockConfig.builder()
                .leaseTtl(lease)
                .heartbeatInterval(heartbeat)
                .reaperInterval(reaperInterval)
                .pollInterval(pollInterval)
                .shutdownTimeout(shutdownTimeout)
                .migrate(migrate)
                .defaultMaxAttempts(defaultMaxAttempts)
                .retention(retention.getFinished())
                .pruneInterval(retention.getPruneInterval());
        if (workerId != null) {
            builder.workerId(workerId);
        }
        queues.forEach((name, queue) -> {
            try {
                SkiplockConfig.builder().queue(name, queue.getConcurrency()).build();
            } catch (IllegalArgumentException refused) {
                // named by the queue's own property: "skiplock.queues.mail.concurrency", not the field
                String message = refused.getMessage();
                // a dotted name is bound in brackets (skiplock.queues[mail.high]), as it must be written
                String key = name.contains(".") ? "skiplock.queues[" + name + "]" : "skiplock.queues." + name;
                String property = message.startsWith("concurrency:") ? key + ".concurrency" : "skiplock.queues[" + name + "]";
                throw new IllegalArgumentException(property + message.substring(message.indexOf(':')));
            }
            builder.queue(name, queue.getConcurrency());
        });
        try {
            return builder.build();
        } catch (IllegalArgumentException refused) {
            // not chained: Spring reports a failed start by its root cause, which must name the property
            throw new IllegalArgumentException(namedByProperty(refused.getMessage()));
        }
    }

    /**
     * {@code message} of a value {@link SkiplockConfig} refused ("heartbeatInterval: must be shorter
     * than leaseTtl"), naming the properties instead ("skiplock.heartbeat: … skiplock.lease").
     */
    private static String namedByProperty(String message) {
        int colon = message.indexOf(':');
        String property = colon < 0 ? null : PROPERTY_OF_FIELD.get(message.substring(0, colon));
        if (property == null) {
            return message;
        }
        String named = property + message.substring(colon);
        for (Map.Entry<String, String> field : PROPERTY_OF_FIELD.entrySet()) {
            if (!field.getKey().equals(field.getKey().toLowerCase(java.util.Locale.ROOT))) {
                // a field named in the text (leaseTtl): camel case, never a word of the prose
                named = named.replace(field.getKey(), field.getValue());
            }
        }
        return named;
    }

    /** One queue's settings ({@code skiplock.queues.<name>.*}). */
    public static class Queue {
        /** How many of this queue's jobs this application runs at once. */
        private int concurrency = 8;

        public int getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }
    }

    /** What running workers delete ({@code skiplock.retention.*}). */
    public static class Retention {
        /** Finished jobs older than this are deleted. */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration finished = Duration.ofDays(7);

        /** How often a running worker deletes what is past retention. */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration pruneInterval = Duration.ofSeconds(60);

        public Duration getFinished() {
            return finished;
        }

        public void setFinished(Duration finished) {
            this.finished = finished;
        }

        public Duration getPruneInterval() {
            return pruneInterval;
        }

        public void setPruneInterval(Duration pruneInterval) {
            this.pruneInterval = pruneInterval;
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Map<String, Queue> getQueues() {
        return queues;
    }

    public void setQueues(Map<String, Queue> queues) {
        this.queues = queues;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Duration getHeartbeat() {
        return heartbeat;
    }

    public void setHeartbeat(Duration heartbeat) {
        this.heartbeat = heartbeat;
    }

    public Duration getReaperInterval() {
        return reaperInterval;
    }

    public void setReaperInterval(Duration reaperInterval) {
        this.reaperInterval = reaperInterval;
    }

    public Duration getPollInterval() {
        return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public boolean isMigrate() {
        return migrate;
    }

    public void setMigrate(boolean migrate) {
        this.migrate = migrate;
    }

    public int getDefaultMaxAttempts() {
        return defaultMaxAttempts;
    }

    public void setDefaultMaxAttempts(int defaultMaxAttempts) {
        this.defaultMaxAttempts = defaultMaxAttempts;
    }

    public String getWorkerId() {
        return workerId;
    }

    public void setWorkerId(String workerId) {
        this.workerId = workerId;
    }

    public Retention getRetention() {
        return retention;
    }
}
