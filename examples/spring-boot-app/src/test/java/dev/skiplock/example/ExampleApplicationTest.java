package dev.skiplock.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skiplock.Job;
import dev.skiplock.JobQuery;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The app over HTTP on PostgreSQL: a sign-up and its job commit together or not at all, the
 * handler bean runs the job, Actuator serves Skiplock's health and counters. Only what Boot 3 and
 * Boot 4 share is used (plain HTTP, no Boot test client), so examples/spring-boot4-app runs it as is.
 */
// Closed after the class, not by a JVM shutdown hook that would race the embedded PostgreSQL's; its schema
// is left to that server (a server named by SKIPLOCK_TEST_PG_URL keeps it).
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "skiplock.poll-interval=200ms")
class ExampleApplicationTest {
    private static final TestPostgres DATABASE = new TestPostgres();
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DATABASE::url);
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    Skiplock skiplock;

    @Autowired
    JdbcTemplate jdbc;

    @Test
    void aCommittedSignupHasItsJobAndTheHandlerBeanRunsIt() throws Exception {
        HttpResponse<String> response = post("/signups?email=ada@example.com");
        assertThat(response.statusCode()).isEqualTo(201);
        UUID jobId = UUID.fromString(JSON.readTree(response.body()).get("jobId").asText());

        Job job = skiplock.awaitTerminal(jobId, Duration.ofMinutes(1));
        assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(job.queue()).isEqualTo("mail");
        assertThat(jdbc.queryForObject("SELECT welcomed FROM signups WHERE email = ?", Boolean.class, "ada@example.com"))
                .isTrue();
    }

    @Test
    void aRolledBackSignupLeavesNeitherItsRowNorItsJob() throws Exception {
        assertThat(post("/signups?email=eve@blocked.example").statusCode()).isEqualTo(422);

        assertThat(jdbc.queryForObject("SELECT count(*) FROM signups WHERE email = ?", Integer.class,
                "eve@blocked.example")).isZero();
        assertThat(skiplock.list(JobQuery.all().withKind(WelcomeEmailHandler.KIND).withLimit(500)).jobs())
                .noneMatch(job -> job.args().get("email").asText().equals("eve@blocked.example"));
    }

    @Test
    void actuatorServesSkiplocksHealthAndCounters() throws Exception {
        UUID jobId = UUID.fromString(JSON.readTree(post("/signups?email=bob@example.com").body()).get("jobId").asText());
        skiplock.awaitTerminal(jobId, Duration.ofMinutes(1));

        JsonNode health = JSON.readTree(get("/actuator/health").body()).get("components").get("skiplock");
        assertThat(health.get("status").asText()).isEqualTo("UP");
        assertThat(health.get("details").get("worker").asText()).isEqualTo("started");
        assertThat(health.get("details").get("database").asText()).isEqualTo("postgres");

        await().atMost(Duration.ofMinutes(1)).until(() -> succeededCount() >= 1);
        assertThat(get("/actuator/metrics/skiplock.jobs.claimed").statusCode()).isEqualTo(200);
    }

    private double succeededCount() throws Exception {
        HttpResponse<String> response = get("/actuator/metrics/skiplock.jobs.succeeded");
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body()).get("measurements").get(0).get("value").asDouble();
    }

    private HttpResponse<String> post(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
