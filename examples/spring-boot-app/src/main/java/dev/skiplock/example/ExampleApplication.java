package dev.skiplock.example;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A sign-up service on Skiplock's Spring Boot starter: {@code POST /signups?email=…} stores the
 * sign-up and enqueues its welcome e-mail in one transaction ({@link SignupService}); the
 * {@link WelcomeEmailHandler} bean sends it; {@code /actuator/health} and
 * {@code /actuator/metrics/skiplock.jobs.succeeded} report the worker.
 */
@SpringBootApplication
public class ExampleApplication {
    public static void main(String[] args) {
        SpringApplication.run(ExampleApplication.class, args);
    }
}
