package dev.skiplock.example;

import dev.skiplock.JobContext;
import dev.skiplock.JobHandler;
import dev.skiplock.JobOutcome;
import dev.skiplock.spring.SkiplockHandler;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** Sends the welcome e-mail (here: marks the sign-up welcomed). Throwing fails the attempt; it is retried. */
@Component
@SkiplockHandler(kind = WelcomeEmailHandler.KIND, args = SignupService.WelcomeEmail.class)
public class WelcomeEmailHandler implements JobHandler<SignupService.WelcomeEmail> {
    public static final String KIND = "email.welcome";

    private final JdbcTemplate jdbc;

    public WelcomeEmailHandler(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public JobOutcome handle(JobContext<SignupService.WelcomeEmail> context) {
        jdbc.update("UPDATE signups SET welcomed = true WHERE email = ?", context.args().email());
        return JobOutcome.complete();
    }
}
