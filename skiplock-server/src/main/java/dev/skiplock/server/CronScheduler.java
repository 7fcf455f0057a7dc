package dev.skiplock.server;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.skiplock.JobRequest;
import dev.skiplock.Names;
import dev.skiplock.Skiplock;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enqueues periodic jobs (DESIGN §5). Each fire time (slot) goes through
 * {@link Skiplock#enqueueScheduled}, which records the slot in the enqueue's transaction: any number
 * of servers may run the same schedule, with clocks skewed by up to a day, and each slot is enqueued
 * at most once, ever, even after its job finished. The job's metadata carries
 * {@code cron: {schedule, slot}}. A slot missed while no server ran is not replayed, and a slot more
 * than {@link #MAX_LATENESS} late on this server's clock (a paused process, a clock jump) is skipped:
 * markers are kept at least a day, so firing only on-time slots leaves a day for clock skew.
 *
 * <p>Time comes from the {@link Clock} given at {@link #create}: {@link #start()} fires on a thread
 * of its own, {@link #fireDue()} fires what is due at the clock's current time on the caller's
 * thread (deterministic tests). Thread-safe.
 */
public final class CronScheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CronScheduler.class);
    private static final Pattern EVERY = Pattern.compile("@every\\s+(\\d{1,9})(ms|s|m|h)");
    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    /** A slot later than this on this server's clock is skipped, not fired (see the class comment). */
    public static final Duration MAX_LATENESS = Duration.ofMinutes(1);
    /** The longest the firing thread sleeps before looking at the clock again (clock changes, close). */
    private static final long MAX_SLEEP_MILLIS = 1000;

    private record Schedule(String name, Function<ZonedDateTime, ZonedDateTime> next, ZoneId zone,
            JobRequest request) {
    }

    private final List<Schedule> schedules;
    /** The next fire time of each schedule, by index; guarded by {@code this}. */
    private final List<ZonedDateTime> due = new ArrayList<>();
    private final Skiplock skiplock;
    private final Clock clock;
    private final Thread thread;
    private volatile boolean running = true;

    private CronScheduler(List<Schedule> schedules, Skiplock skiplock, Clock clock) {
        this.schedules = schedules;
        this.skiplock = skiplock;
        this.clock = clock;
        this.thread = Thread.ofPlatform().name("skiplock-cron").daemon().unstarted(this::loop);
        // The first slot of each schedule is the first one after now: a missed slot is not replayed.
        for (Schedule schedule : schedules) {
            due.add(schedule.next().apply(ZonedDateTime.ofInstant(clock.instant(), schedule.zone())));
        }
    }

    /**
     * Validates the {@code cron} entries of {@code config} (an IllegalArgumentException names
     * {@code cron[i].field}; command jobs are checked against its tools) without firing anything.
     */
    public static CronScheduler create(ServerConfig config, Skiplock skiplock, Clock clock) {
        return create(config.cron(), new SubmitParser(new Tools(config.tools(), config.allowCommands())), skiplock,
                clock);
    }

    static CronScheduler create(List<CronEntry> entries, SubmitParser parser, Skiplock skiplock, Clock clock) {
        try {
            return new CronScheduler(validated(entries, parser), skiplock, clock);
        } catch (ApiError e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static List<Schedule> validated(List<CronEntry> entries, SubmitParser parser) {
        List<Schedule> schedules = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            CronEntry entry = entries.get(i);
            String prefix = "cron[" + i + "].";
            try {
                Names.check(prefix + "name", entry.name());
            } catch (IllegalArgumentException e) {
                throw ApiError.invalid(e);
            }
            ZoneId zone = zone(entry.timezone(), prefix);
            JobRequest request = parser.parse(entry.job(), prefix + "job.");
            if (!request.durable()) {
                throw ApiError.invalid(prefix + "job.durable", "periodic jobs are durable");
            }
            if (request.uniqueKey() != null) {
                throw ApiError.invalid(prefix + "job.uniqueKey", "a periodic job is identified by its schedule "
                        + "and slot; leave uniqueKey unset");
            }
            schedules.add(new Schedule(entry.name(), next(entry.schedule(), prefix), zone, request));
        }
        return schedules;
    }

    private static ZoneId zone(String timezone, String prefix) {
        try {
            return timezone == null ? ZoneId.of("UTC") : ZoneId.of(timezone);
        } catch (DateTimeException e) {
            throw ApiError.invalid(prefix + "timezone", "unknown time zone '" + timezone + "'");
        }
    }

    private static Function<ZonedDateTime, ZonedDateTime> next(String schedule, String prefix) {
        if (schedule == null) {
            throw ApiError.invalid(prefix + "schedule", "is required");
        }
        Matcher every = EVERY.matcher(schedule.strip());
        if (every.matches()) {
            long amount = Long.parseLong(every.group(1));
            Duration period = switch (every.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofHours(amount);
            };
            if (period.toMillis() < 1000) {
                throw ApiError.invalid(prefix + "schedule", "@every must be at least 1s");
            }
            long step = period.toMillis();
            // Slots aligned to the epoch, so every server computes the same fire times.
            return now -> ZonedDateTime.ofInstant(Instant.ofEpochMilli((now.toInstant().toEpochMilli() / step + 1) * step),
                    now.getZone());
        }
        try {
            ExecutionTime execution = ExecutionTime.forCron(UNIX.parse(schedule));
            return now -> execution.nextExecution(now).orElseThrow();
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(prefix + "schedule", "not a cron expression or @every: " + e.getMessage());
        }
    }

    /** Starts firing on the {@code skiplock-cron} thread (nothing to do without schedules). Returns this. */
    public CronScheduler start() {
        if (!schedules.isEmpty()) {
            thread.start();
        }
        return this;
    }

    /**
     * Fires every slot that is due at the clock's current time, in order, on the caller's thread;
     * returns how many jobs this call enqueued (a slot another scheduler enqueued first counts 0).
     * Slots more than {@link #MAX_LATENESS} late are skipped. A failed enqueue is logged and its slot passed.
     */
    public synchronized int fireDue() {
        Instant now = clock.instant();
        int enqueued = 0;
        for (int i = 0; i < schedules.size(); i++) {
            Schedule schedule = schedules.get(i);
            ZonedDateTime oldestOnTime = ZonedDateTime.ofInstant(now.minus(MAX_LATENESS), schedule.zone());
            if (due.get(i).isBefore(oldestOnTime)) {
                LOG.warn("cron {} skips the slots from {} to {}: more than {} late (process paused or clock changed)",
                        schedule.name(), due.get(i), oldestOnTime, MAX_LATENESS);
                due.set(i, schedule.next().apply(oldestOnTime));
            }
            while (!due.get(i).toInstant().isAfter(now)) {
                if (fire(schedule, due.get(i))) {
                    enqueued++;
                }
                due.set(i, schedule.next().apply(due.get(i)));
            }
        }
        return enqueued;
    }

    private synchronized Instant soonest() {
        return due.stream().map(ZonedDateTime::toInstant).min(Instant::compareTo).orElseThrow();
    }

    private void loop() {
        while (running) {
            long wait;
            try {
                fireDue();
                wait = Duration.between(clock.instant(), soonest()).toMillis();
            } catch (RuntimeException e) {
                // Never dies: log, back off, go on.
                LOG.warn("cron could not fire due slots; trying again: {}", e.getMessage());
                wait = MAX_SLEEP_MILLIS;
            }
            if (wait > 0) {
                try {
                    Thread.sleep(Math.min(wait, MAX_SLEEP_MILLIS));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private boolean fire(Schedule schedule, ZonedDateTime slot) {
        Map<String, Object> metadata = new LinkedHashMap<>(schedule.request().metadata());
        metadata.put("cron", Map.of("schedule", schedule.name(), "slot", slot.toInstant().toString()));
        try {
            return skiplock.enqueueScheduled(schedule.name(), slot.toInstant(),
                    schedule.request().withMetadata(metadata)).isPresent();
        } catch (RuntimeException e) {
            LOG.warn("cron {} could not enqueue the {} slot: {}", schedule.name(), slot, e.getMessage());
            return false;
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
