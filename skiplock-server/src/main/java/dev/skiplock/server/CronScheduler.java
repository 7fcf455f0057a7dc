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
import java.util.HashMap;
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
 * at most once, ever, even after its job finished, and after its marker was pruned (a slot no later
 * than a pruned one of its schedule is refused, see {@link dev.skiplock.JobClient#enqueueScheduled}). The job's metadata carries
 * {@code cron: {schedule, slot}}. A slot missed while no server ran is not replayed, and a slot more
 * than {@link #MAX_LATENESS} late on this server's clock (a paused process, a clock jump) is skipped:
 * markers are kept at least a day, so firing only on-time slots leaves a day for clock skew. An
 * enqueue that fails (the database restarting, a connection cut) is tried again about a second
 * later, until its slot is that late.
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
    /** The longest {@code @every} period. */
    static final Duration MAX_EVERY = Duration.ofDays(366);
    /** The longest the firing thread sleeps before looking at the clock again (clock changes, close). */
    private static final long MAX_SLEEP_MILLIS = 1000;
    /**
     * How far back a cron expression's slots are walked from to find the first after a time that is
     * not a slot: further than a zone's clocks ever go back, and less than the time between two of
     * its changes.
     */
    private static final Duration WALK_FROM = Duration.ofDays(2);

    /**
     * One schedule. {@code next} gives the slot after a slot; {@code walked} says whether the slot
     * after any other time must be found by walking from a slot ({@link #firstAfter}).
     */
    private record Schedule(String name, Function<ZonedDateTime, ZonedDateTime> next, boolean walked, ZoneId zone,
            JobRequest request) {

        /**
         * The first slot after {@code time}, the same whenever a scheduler asks. A cron expression's
         * next fire time after a time that is not a slot may differ from the sequence of slots: on
         * the night a zone's clocks go back, the next fire time after a time inside the repeated hour
         * is that hour's second occurrence, which the sequence skips (cron-utils). A scheduler started
         * or resumed in that hour would fire a daily slot a second time; walking from a slot two days
         * earlier keeps every scheduler on one sequence. {@code @every} slots are aligned to the
         * epoch and need no walk.
         */
        ZonedDateTime firstAfter(Instant time) {
            ZonedDateTime slot = next.apply(ZonedDateTime.ofInstant(walked ? time.minus(WALK_FROM) : time, zone));
            while (!slot.toInstant().isAfter(time)) {
                slot = next.apply(slot);
            }
            return slot;
        }
    }

    /** What one attempt to fire a slot came to. */
    private enum Fired { ENQUEUED, TAKEN, FAILED }

    private final List<Schedule> schedules;
    /** The next fire time of each schedule, by index; guarded by {@code this}. */
    private final List<ZonedDateTime> due = new ArrayList<>();
    private final Skiplock skiplock;
    private final Clock clock;
    private final Thread thread;
    private volatile boolean running = true;
    /** Whether the last {@link #fireDue} left a slot due after its enqueue failed; guarded by {@code this}. */
    private boolean failed;

    private CronScheduler(List<Schedule> schedules, Skiplock skiplock, Clock clock) {
        this.schedules = schedules;
        this.skiplock = skiplock;
        this.clock = clock;
        this.thread = Thread.ofPlatform().name("skiplock-cron").daemon().unstarted(this::loop);
        // The first slot of each schedule is the first one after now: a missed slot is not replayed.
        for (Schedule schedule : schedules) {
            due.add(schedule.firstAfter(clock.instant()));
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

    /** Refuses invalid {@code entries} as {@link #create} does, without a scheduler. */
    static void check(List<CronEntry> entries, SubmitParser parser) {
        try {
            validated(entries, parser);
        } catch (ApiError e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
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
        Map<String, Integer> named = new HashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            CronEntry entry = entries.get(i);
            String prefix = "cron[" + i + "].";
            try {
                Names.check(prefix + "name", entry.name());
            } catch (IllegalArgumentException e) {
                throw ApiError.invalid(e);
            }
            // A slot is recorded by its schedule's name: two entries of one name would take each other's slots.
            Integer first = named.putIfAbsent(entry.name(), i);
            if (first != null) {
                throw ApiError.invalid(prefix + "name", "'" + entry.name() + "' is also the name of cron[" + first
                        + "]; each schedule needs a name of its own");
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
            if (!request.dependsOn().isEmpty()) {
                // every slot would wait on the same jobs, and fail once retention removed them
                throw ApiError.invalid(prefix + "job.dependsOn", "a periodic job cannot depend on given jobs");
            }
            if (request.runAt() != null) {
                throw ApiError.invalid(prefix + "job.runAt", "each slot's job runs at its slot; leave runAt unset");
            }
            if (request.traceparent() != null) {
                throw ApiError.invalid(prefix + "job.traceparent", "each slot's job starts a trace of its own;"
                        + " leave traceparent unset");
            }
            if (request.metadata().containsKey("cron")) {
                throw ApiError.invalid(prefix + "job.metadata.cron", "is the slot's (schedule and slot): use another key");
            }
            schedules.add(new Schedule(entry.name(), next(entry.schedule(), prefix),
                    !EVERY.matcher(entry.schedule().strip()).matches(), zone, request));
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
            if (period.compareTo(MAX_EVERY) > 0) {
                // slots are aligned to the epoch: "@every 999999999h" was taken, and its first slot
                // lay 114,000 years ahead
                throw ApiError.invalid(prefix + "schedule", "@every must be at most " + MAX_EVERY.toHours()
                        + "h (366 days); use a cron expression for a longer period");
            }
            long step = period.toMillis();
            // Slots aligned to the epoch, so every server computes the same fire times.
            return now -> ZonedDateTime.ofInstant(Instant.ofEpochMilli((now.toInstant().toEpochMilli() / step + 1) * step),
                    now.getZone());
        }
        ExecutionTime execution;
        try {
            execution = ExecutionTime.forCron(UNIX.parse(schedule));
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(prefix + "schedule", "not a cron expression or @every: " + e.getMessage());
        }
        if (execution.nextExecution(ZonedDateTime.now(java.time.ZoneOffset.UTC)).isEmpty()) {
            // such as "0 0 30 2 *": refused here rather than failing the scheduler's start
            throw ApiError.invalid(prefix + "schedule", "'" + schedule + "' never fires");
        }
        Function<ZonedDateTime, ZonedDateTime> next = now -> execution.nextExecution(now).orElseThrow();
        return fixedTime(schedule) ? onceAWallTime(next) : next;
    }

    /**
     * Whether a cron expression fires at fixed times of day: neither its minute nor its hour field
     * is a wildcard ({@code *}, {@code *}{@code /n}), as cron(8) tells its fixed-time jobs from its
     * wildcard ones, which run by the clock's new time.
     */
    private static boolean fixedTime(String schedule) {
        String[] fields = schedule.strip().split("\\s+");
        return fields.length >= 2 && !fields[0].startsWith("*") && !fields[1].startsWith("*");
    }

    /**
     * {@code next}, passing over a slot whose local time is not after the slot before it: the night a
     * zone's clocks go back, a fixed-time slot of the repeated hour fires in the hour's first
     * occurrence only. cron-utils gives {@code 30 0-3 * * *} both 01:30 EDT and 01:30 EST, so a
     * nightly job ran twice.
     */
    private static Function<ZonedDateTime, ZonedDateTime> onceAWallTime(Function<ZonedDateTime, ZonedDateTime> next) {
        return slot -> {
            ZonedDateTime following = next.apply(slot);
            while (!following.toLocalDateTime().isAfter(slot.toLocalDateTime())) {
                following = next.apply(following);
            }
            // From a time that is not a slot, cron-utils gives a repeated hour's second occurrence
            // (a weekly slot, walked to from two days back): the slot is the first.
            return following.withEarlierOffsetAtOverlap();
        };
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
     * Slots more than {@link #MAX_LATENESS} late are skipped. A failed enqueue is logged and its
     * slot, with the later ones of its schedule, is left due: the next call tries it again.
     */
    public synchronized int fireDue() {
        Instant round = clock.instant();
        int enqueued = 0;
        failed = false;
        for (int i = 0; i < schedules.size(); i++) {
            Schedule schedule = schedules.get(i);
            // The slots due when the round began (so that it ends, however long its enqueues take),
            // each checked for lateness against the clock as it comes: an enqueue may wait (a
            // connection the pool cannot give, up to its timeout), and a slot checked against a time
            // read before it fired that late.
            while (!due.get(i).toInstant().isAfter(round)) {
                Instant oldestOnTime = clock.instant().minus(MAX_LATENESS);
                if (due.get(i).toInstant().isBefore(oldestOnTime)) {
                    LOG.warn("cron {} skips the slots from {} to {}: more than {} late (process paused, clock changed"
                            + " or the enqueue kept failing)", schedule.name(), due.get(i), oldestOnTime, MAX_LATENESS);
                    due.set(i, schedule.firstAfter(oldestOnTime));
                    continue;
                }
                Fired fired = fire(schedule, due.get(i));
                if (fired == Fired.FAILED) {
                    failed = true;
                    break;
                }
                if (fired == Fired.ENQUEUED) {
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
                wait = failedLastRound() ? MAX_SLEEP_MILLIS : Duration.between(clock.instant(), soonest()).toMillis();
            } catch (RuntimeException | Error e) {
                // Never dies, not even of an Error (a stack overflow, out of memory): every later slot
                // of this server would be skipped. Log, back off, go on.
                LOG.warn("cron could not fire due slots; trying again: {}", reason(e));
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

    private synchronized boolean failedLastRound() {
        return failed;
    }

    /**
     * Enqueues the slot's job unless another scheduler did. The slot's marker and its job commit
     * together, so a slot whose enqueue failed may be tried again: it is enqueued once all the same.
     */
    private Fired fire(Schedule schedule, ZonedDateTime slot) {
        Map<String, Object> metadata = new LinkedHashMap<>(schedule.request().metadata());
        metadata.put("cron", Map.of("schedule", schedule.name(), "slot", slot.toInstant().toString()));
        try {
            // runAt: a server whose clock is ahead of the database's starts no job before its slot
            return skiplock.enqueueScheduled(schedule.name(), slot.toInstant(),
                    schedule.request().withMetadata(metadata).withRunAt(slot.toInstant())).isPresent()
                    ? Fired.ENQUEUED : Fired.TAKEN;
        } catch (RuntimeException | Error e) {
            LOG.warn("cron {} could not enqueue the {} slot; trying it again: {}", schedule.name(), slot, reason(e));
            return Fired.FAILED;
        }
    }

    /** What went wrong, for a log line: an Error's class too (a StackOverflowError has no message). */
    private static String reason(Throwable e) {
        return e instanceof Error ? e.toString() : e.getMessage();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
