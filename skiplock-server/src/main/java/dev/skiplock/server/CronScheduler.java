package dev.skiplock.server;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.skiplock.JobRequest;
import dev.skiplock.Names;
import dev.skiplock.Skiplock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enqueues periodic jobs (DESIGN §5). Each fire time is enqueued with the unique key
 * {@code cron:<name>:<epoch second>}, so any number of servers may run the same schedule and each
 * slot is enqueued once while its job is live. A slot missed while no server ran is not replayed.
 */
final class CronScheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CronScheduler.class);
    private static final Pattern EVERY = Pattern.compile("@every\\s+(\\d{1,9})(ms|s|m|h)");
    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

    private record Schedule(String name, Function<ZonedDateTime, ZonedDateTime> next, ZoneId zone,
            JobRequest request) {
    }

    private final List<Schedule> schedules;
    private final Skiplock skiplock;
    private final Thread thread;
    private volatile boolean running = true;

    private CronScheduler(List<Schedule> schedules, Skiplock skiplock) {
        this.schedules = schedules;
        this.skiplock = skiplock;
        this.thread = Thread.ofPlatform().name("skiplock-cron").daemon().unstarted(this::loop);
    }

    /** Validates every entry (an IllegalArgumentException names {@code cron[i].field}) and starts firing. */
    static CronScheduler start(List<CronEntry> entries, SubmitParser parser, Skiplock skiplock) {
        try {
            return startValidated(entries, parser, skiplock);
        } catch (ApiError e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static CronScheduler startValidated(List<CronEntry> entries, SubmitParser parser, Skiplock skiplock) {
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
            SubmitParser.Submission submission = parser.parse(entry.job(), prefix + "job.");
            if (!submission.durable()) {
                throw ApiError.invalid(prefix + "job.durable", "periodic jobs are durable");
            }
            schedules.add(new Schedule(entry.name(), next(entry.schedule(), prefix), zone, submission.request()));
        }
        CronScheduler scheduler = new CronScheduler(schedules, skiplock);
        if (!schedules.isEmpty()) {
            scheduler.thread.start();
        }
        return scheduler;
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

    private void loop() {
        List<ZonedDateTime> due = new ArrayList<>();
        for (Schedule schedule : schedules) {
            due.add(schedule.next().apply(ZonedDateTime.now(schedule.zone())));
        }
        while (running) {
            int soonest = 0;
            for (int i = 1; i < due.size(); i++) {
                if (due.get(i).isBefore(due.get(soonest))) {
                    soonest = i;
                }
            }
            long wait = Duration.between(Instant.now(), due.get(soonest).toInstant()).toMillis();
            if (wait > 0) {
                try {
                    Thread.sleep(Math.min(wait, 1000)); // re-check at least every second (clock changes, close)
                } catch (InterruptedException e) {
                    return;
                }
                continue;
            }
            Schedule schedule = schedules.get(soonest);
            fire(schedule, due.get(soonest));
            due.set(soonest, schedule.next().apply(due.get(soonest)));
        }
    }

    private void fire(Schedule schedule, ZonedDateTime slot) {
        String key = "cron:" + schedule.name() + ":" + slot.toEpochSecond();
        try {
            skiplock.enqueue(schedule.request().withUniqueKey(key.length() <= 128 ? key : key.substring(0, 128)));
        } catch (RuntimeException e) {
            LOG.warn("cron {} could not enqueue the {} slot: {}", schedule.name(), slot, e.getMessage());
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
