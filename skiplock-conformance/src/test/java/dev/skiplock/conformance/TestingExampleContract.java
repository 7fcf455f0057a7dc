package dev.skiplock.conformance;

import static dev.skiplock.testing.SkiplockAssertions.assertEnqueued;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.JobClient;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.testing.SkiplockTestDatabase;
import dev.skiplock.testing.SkiplockTesting;
import dev.skiplock.testing.TestClock;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * README "Testing your handlers": its example is the code between the markers below, run here with
 * skiplock-testing's extension on both databases (a subclass each, annotated {@code @SkiplockTest}),
 * and the README shows exactly that code ({@link ReadmeExamples}, as for {@link WorkflowExampleContract}).
 */
abstract class TestingExampleContract {

    record SendEmail(String to, String subject) {}

    /** The application code under test: a sign-up that enqueues its mails in the caller's transaction. */
    record Signup(JobClient jobs, java.time.Clock clock) {
        void register(Connection connection, String email) {
            jobs.enqueue(connection, JobRequest.of("email.send", new SendEmail(email, "Welcome")));
            jobs.enqueue(connection, JobRequest.of("email.send", new SendEmail(email, "Any questions?"))
                    .withRunAt(Instant.now(clock).plus(Duration.ofDays(1))));
        }
    }

    /** Stands for the application's mail client: records what it sent. */
    private static final class Mailer {
        final List<String> sent = new CopyOnWriteArrayList<>();

        String send(String to, String subject) {
            sent.add(subject + " → " + to);
            return "sent " + subject;
        }
    }

    private final Mailer mailer = new Mailer();

    @Test
    void theReadmesTestRunsTheWelcomeNowAndTheReminderADayLater(SkiplockTestDatabase database, Skiplock.Builder app,
            TestClock clock) throws Exception {
        // README:testing:begin
        Skiplock.Builder mail = app.handler("email.send", SendEmail.class,
                context -> JobOutcome.complete(mailer.send(context.args().to(), context.args().subject())));
        Signup signup = new Signup(database.client(), clock);   // your code: welcome now, a reminder in a day

        try (Connection connection = database.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            signup.register(connection, "ada@example.com");
            assertEnqueued(connection, "email.send", args -> args.get("subject").asText().equals("Welcome"));
            connection.commit();                                 // (the assertion above sees it before)
        }
        Job welcome = assertEnqueued(database.client(), "email.send", SendEmail.class,
                email -> email.subject().equals("Welcome") && email.to().equals("ada@example.com"));
        Job sent = SkiplockTesting.runNow(mail, welcome);        // real claim, handler and completion
        assertThat(sent.status()).isEqualTo(JobStatus.SUCCEEDED);

        assertThat(SkiplockTesting.drain(mail, "default")).isEmpty();   // the reminder is not due yet
        clock.advance(Duration.ofDays(1));
        assertThat(SkiplockTesting.runDue(mail, clock, "default")).singleElement()
                .satisfies(reminder -> assertThat(reminder.result().asText()).isEqualTo("sent Any questions?"));
        // README:testing:end

        assertThat(mailer.sent).containsExactly("Welcome → ada@example.com", "Any questions? → ada@example.com");
    }

    @Test
    void theReadmeShowsTheExampleThatRunsHere() throws Exception {
        ReadmeExamples.assertReadmeShows(TestingExampleContract.class, "testing", "## Testing your handlers");
    }
}
