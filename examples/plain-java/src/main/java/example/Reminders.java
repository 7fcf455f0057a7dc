package example;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import java.time.Duration;
import java.util.Map;

/**
 * A plain Java application: it enqueues a reminder and works it off in the same process, on an
 * SQLite file (the URL may as well be {@code postgresql://user@host/db}).
 */
public final class Reminders {
    /** The job's args: what Jackson reads the JSON into. */
    public record Remind(String who, String what) {
    }

    private Reminders() {
    }

    /** Sends one reminder through Skiplock and returns the finished job. */
    public static Job remind(String url, String who, String what) throws InterruptedException {
        try (Skiplock skiplock = Skiplock.builder()
                .url(url)
                .config(SkiplockConfig.builder().queue("reminders", 4).build())
                .handler("reminder.send", Remind.class, context -> {
                    String text = "reminded " + context.args().who() + " to " + context.args().what();
                    context.log("stdout", text);
                    return JobOutcome.complete(Map.of("sent", text));
                })
                .build()) {
            skiplock.start();
            Job job = skiplock.enqueue(JobRequest.of("reminder.send", new Remind(who, what)).withQueue("reminders"));
            return skiplock.awaitTerminal(job.id(), Duration.ofMinutes(1));
        }
    }

    public static void main(String[] args) throws InterruptedException {
        String url = args.length > 0 ? args[0] : "jdbc:sqlite:./reminders.db";
        Job done = remind(url, "ada", "water the plants");
        System.out.println(done.status().wireName() + ": " + done.result());
    }
}
