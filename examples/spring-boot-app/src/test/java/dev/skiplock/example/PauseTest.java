package dev.skiplock.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.spring.SkiplockJobs;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Boot 4's test context cache pauses a cached context when a test class needs another one and
 * restarts it when a class comes back to it (Spring 7's {@code ConfigurableApplicationContext.pause}
 * and {@code restart}). Skiplock is not paused: its worker goes on. Before, the pause closed Skiplock
 * for good and the restarted context ran no job. Boot 3's contexts are never paused (no such methods):
 * there this test is skipped, and examples/spring-boot4-app runs it.
 */
class PauseTest {
    @Test
    void aPausedAndRestartedContextRunsJobs() throws Exception {
        Method pause = method("pause");
        Method restart = method("restart");
        Assumptions.assumeTrue(pause != null && restart != null, "Spring 6 (Boot 3): a context is never paused");
        try (TestPostgres database = new TestPostgres();
                ConfigurableApplicationContext context = new SpringApplicationBuilder(ExampleApplication.class)
                        .web(WebApplicationType.NONE)
                        .run("--spring.datasource.url=" + database.url(), "--skiplock.poll-interval=200ms")) {
            pause.invoke(context);
            restart.invoke(context);

            Job job = context.getBean(SkiplockJobs.class).enqueue(JobRequest.of(WelcomeEmailHandler.KIND,
                    Map.of("email", "paused@example.com")).withQueue("mail"));
            assertThat(context.getBean(Skiplock.class).awaitTerminal(job.id(), Duration.ofMinutes(1)).status())
                    .isEqualTo(JobStatus.SUCCEEDED);
        }
    }

    private static Method method(String name) {
        try {
            return ConfigurableApplicationContext.class.getMethod(name);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
