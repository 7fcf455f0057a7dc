package dev.skiplock.example;

import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.spring.SkiplockJobs;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Stores a sign-up and enqueues its welcome e-mail: both commit, or neither does. */
@Service
public class SignupService {
    /** A welcome e-mail's job args: the kind's JSON. */
    public record WelcomeEmail(String email) {
    }

    public record Signup(String email, String jobId) {
    }

    /** Thrown by the last check of a sign-up, after its row and its job were written: both roll back. */
    public static class SignupRefusedException extends RuntimeException {
        SignupRefusedException(String message) {
            super(message);
        }
    }

    private final JdbcTemplate jdbc;
    private final SkiplockJobs jobs;

    public SignupService(JdbcTemplate jdbc, SkiplockJobs jobs) {
        this.jdbc = jdbc;
        this.jobs = jobs;
    }

    @Transactional
    public Signup signUp(String email) {
        jdbc.update("INSERT INTO signups (email, welcomed) VALUES (?, false)", email);
        Job job = jobs.enqueue(JobRequest.of(WelcomeEmailHandler.KIND, new WelcomeEmail(email)).withQueue("mail"));
        if (email.endsWith("@blocked.example")) {   // e.g. a fraud check that answers last
            throw new SignupRefusedException("sign-ups from blocked.example are refused");
        }
        return new Signup(email, job.id().toString());
    }
}
