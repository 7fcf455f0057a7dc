package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every field of a job survives every path a job row takes: the single insert (insert_jobs; a plain
 * job's insert_queued_job), the JSON batch insert, the COPY batch (PostgreSQL, 100+ plain jobs), the
 * claim, the read, and the HTTP JSON. The checks are
 * by {@link Job}'s record components, so a field added to {@code Job} but not wired through the one
 * column list, a statement or COPY fails here: at insert every component must be set (or be named in
 * {@link #SET_LATER}), and what the enqueue returned must equal what a read and a claim return.
 */
abstract class JobFieldsContract extends ContractBase {
    /** Components a new job leaves at their default: a worker or a client sets them later. */
    private static final Set<String> SET_LATER = Set.of("attempt", "startedAt", "finishedAt", "cancelRequested",
            "progress", "result", "lastError", "lockedBy", "lockedUntil");
    /** What COPY cannot take (BulkJobInserter.accepts sends such jobs through insert_jobs). */
    private static final Set<String> NOT_IN_COPY_BATCHES = Set.of("uniqueKey", "dependsOn");
    /** Set by the claim; everything else a claimed job carries is as stored. */
    private static final Set<String> SET_BY_CLAIM = Set.of("status", "attempt", "startedAt", "lockedBy", "lockedUntil");
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    record Args(String text, int number) {
    }

    @Test
    void everyFieldSurvivesTheSingleInsertTheReadAndTheClaim() throws InterruptedException {
        BlockingQueue<Job> claimed = new ArrayBlockingQueue<>(4);
        Skiplock worker = started(builder(config -> config.queue("fields", 1))
                .handler("dependency", Args.class, context -> JobOutcome.complete(null))
                .handler("every-field", Args.class, context -> {
                    claimed.add(context.job());
                    return JobOutcome.complete(null);
                }));
        Job dependency = worker.enqueue(JobRequest.of("dependency", new Args("first", 1)).withQueue("fields"));
        assertThat(awaitTerminal(worker, dependency.id()).status()).isEqualTo(JobStatus.SUCCEEDED);

        Job returned = worker.enqueue(everyField(0).withUniqueKey("fields-unique").withDependsOn(List.of(dependency.id())));
        assertEverySetAtInsert(returned, Set.of());
        Job claim = claimed.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(claim).as("the job was claimed").isNotNull();
        assertSameComponents(claim, returned, SET_BY_CLAIM);
        assertThat(claim.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(claim.attempt()).isEqualTo(1);
        assertThat(claim.lockedBy()).isNotNull();
        assertThat(claim.startedAt()).isNotNull();
        assertThat(claim.lockedUntil()).isNotNull();
        Job finished = awaitTerminal(worker, returned.id());
        assertSameComponents(finished, claim, Set.of("status", "finishedAt", "lockedBy", "lockedUntil", "result"));
    }

    /**
     * A plain job (no unique key, no dependency) alone: insert_queued_job, its columns as parameters.
     * It is read before any worker runs, then claimed.
     */
    @Test
    void everyFieldSurvivesThePlainSingleInsertTheReadAndTheClaim() throws InterruptedException {
        Skiplock client = client();
        Job returned = client.enqueue(everyField(0));
        assertEverySetAtInsert(returned, NOT_IN_COPY_BATCHES);
        assertThat(returned.status()).isEqualTo(JobStatus.QUEUED);
        assertSameComponents(client.get(returned.id()).orElseThrow(), returned, Set.of());
        assertThat(client.events(returned.id(), 0, 10)).extracting(event -> event.status() + "@" + event.attempt())
                .containsExactly("queued@0");

        BlockingQueue<Job> claimed = new ArrayBlockingQueue<>(4);
        Skiplock worker = started(builder(config -> config.queue("fields", 1))
                .handler("every-field", Args.class, context -> {
                    claimed.add(context.job());
                    return JobOutcome.complete(null);
                }));
        Job claim = claimed.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(claim).as("the job was claimed").isNotNull();
        assertSameComponents(claim, returned, SET_BY_CLAIM);
        assertThat(awaitTerminal(worker, returned.id()).status()).isEqualTo(JobStatus.SUCCEEDED);
    }

    /** Alone (insert_queued_job), in a small batch (insert_jobs) and in a large one (PostgreSQL: COPY). */
    @Test
    void aRunAtTimeIsStoredToTheMillisecondOnEveryInsertPath() {
        Skiplock client = client();
        Instant runAt = Instant.parse("2031-02-03T04:05:06.123456789Z");
        List<Job> returned = new ArrayList<>();
        returned.add(client.enqueue(JobRequest.of("later", null).withRunAt(runAt)));
        returned.addAll(client.enqueueMany(List.of(JobRequest.of("later", null).withRunAt(runAt),
                JobRequest.of("later", null).withRunAt(runAt))));
        List<JobRequest> large = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            large.add(JobRequest.of("later", null).withRunAt(runAt));
        }
        returned.addAll(client.enqueueMany(large));

        Instant stored = Instant.parse("2031-02-03T04:05:06.123Z");
        for (Job job : returned) {
            assertThat(job.availableAt()).as("returned").isEqualTo(stored);
            assertThat(client.get(job.id()).orElseThrow().availableAt()).as("read").isEqualTo(stored);
        }
    }

    @Test
    void everyFieldSurvivesTheBatchInsertAndTheRead() {
        Skiplock client = client();
        Job dependency = client.enqueue(JobRequest.of("dependency", new Args("first", 1)));
        List<JobRequest> requests = List.of(everyField(1), everyField(2).withUniqueKey("batch-unique"),
                everyField(3).withDependsOn(List.of(dependency.id())));
        List<Job> returned = client.enqueueMany(requests);
        assertThat(returned).hasSize(3);
        assertEverySetAtInsert(returned.get(1), Set.of("dependsOn"));
        assertEverySetAtInsert(returned.get(2), Set.of("uniqueKey"));
        assertThat(returned.get(2).status()).isEqualTo(JobStatus.WAITING);
        for (Job job : returned) {
            assertSameComponents(client.get(job.id()).orElseThrow(), job, Set.of());
        }
    }

    /** 100+ plain jobs: PostgreSQL streams them with COPY (copy_jobs); SQLite inserts them like any batch. */
    @Test
    void everyFieldSurvivesTheLargeBatchAndTheRead() {
        Skiplock client = client();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            requests.add(everyField(i));
        }
        List<Job> returned = client.enqueueMany(requests);
        for (Job job : returned) {
            assertEverySetAtInsert(job, NOT_IN_COPY_BATCHES);
            assertSameComponents(client.get(job.id()).orElseThrow(), job, Set.of());
        }
    }

    @Test
    void everyFieldIsInTheHttpJsonAndTheTraceparentIsTakenFromTheBodyOrTheHeader() {
        Skiplock skiplock = client();
        try (SkiplockServer server = SkiplockServer.start(skiplock,
                new ServerConfig("127.0.0.1", 0, 1024 * 1024, false, Map.of()))) {
            Http http = new Http(server.port());
            Http.Answer created = http.post("/api/v1/jobs", "{\"kind\": \"every-field\", \"traceparent\": \""
                    + TRACEPARENT + "\", \"uniqueKey\": \"http\", \"metadata\": {\"team\": \"a\"}}");
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            Job stored = skiplock.get(UUID.fromString(created.json().path("id").asText())).orElseThrow();
            assertThat(stored.traceparent()).isEqualTo(TRACEPARENT);

            JsonNode json = http.get("/api/v1/jobs/" + stored.id()).json();
            Set<String> keys = new HashSet<>();
            json.fieldNames().forEachRemaining(keys::add);
            assertThat(keys).containsExactlyInAnyOrderElementsOf(
                    Arrays.stream(Job.class.getRecordComponents()).map(RecordComponent::getName).toList());
            assertThat(json.path("traceparent").asText()).isEqualTo(TRACEPARENT);
            assertThat(json.path("uniqueKey").asText()).isEqualTo("http");
            assertThat(json.path("metadata").path("team").asText()).isEqualTo("a");

            String headerTrace = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
            Http.Answer fromHeader = http.post("/api/v1/jobs", "{\"kind\": \"every-field\"}",
                    Map.of("traceparent", headerTrace));
            assertThat(fromHeader.json().path("traceparent").asText()).isEqualTo(headerTrace);
            Http.Answer badHeader = http.post("/api/v1/jobs", "{\"kind\": \"every-field\"}",
                    Map.of("traceparent", "garbage"));
            assertThat(badHeader.status()).isEqualTo(201);
            assertThat(badHeader.json().path("traceparent").isNull()).isTrue();

            Http.Answer bad = http.post("/api/v1/jobs", "{\"kind\": \"x\", \"traceparent\": \"not-a-trace\"}");
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.json().path("error").path("field").asText()).isEqualTo("traceparent");
        }
    }

    @Test
    void aTraceparentThatIsNotAW3cTraceContextIsRefusedNamingTheField() {
        for (String bad : List.of("", "00-abc", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", TRACEPARENT + "-extra",
                TRACEPARENT.toUpperCase())) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> JobRequest.of("k", null).withTraceparent(bad))
                    .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("traceparent:");
        }
        // A later version may carry more fields (W3C Trace Context: parse the first four, keep the rest).
        assertThat(JobRequest.of("k", null).withTraceparent("01" + TRACEPARENT.substring(2) + "-more").traceparent())
                .endsWith("-more");
    }

    /** A request that sets every field a request can set, apart from the unique key and dependencies. */
    private static JobRequest everyField(int n) {
        return JobRequest.of("every-field", new Args("job " + n, n))
                .withQueue("fields")
                .withPriority(7)
                .withMaxAttempts(3)
                // in the past, so the job is claimable at once; whole milliseconds, as stored
                .withRunAt(Instant.now().minusSeconds(1).truncatedTo(ChronoUnit.MILLIS))
                .withTimeout(Duration.ofSeconds(90))
                .withMetadata(Map.of("team", "fields", "n", n))
                .withTraceparent(TRACEPARENT);
    }

    /** Every component not set later has a value: a null, false, 0 or empty one was dropped on the way. */
    private static void assertEverySetAtInsert(Job job, Set<String> notGiven) {
        for (RecordComponent component : Job.class.getRecordComponents()) {
            String name = component.getName();
            Object value = value(component, job);
            if (SET_LATER.contains(name) || notGiven.contains(name)) {
                continue;
            }
            assertThat(value).as("component %s of the inserted job", name).isNotNull()
                    .isNotIn(false, 0, List.of());
        }
    }

    private static void assertSameComponents(Job actual, Job expected, Set<String> except) {
        for (RecordComponent component : Job.class.getRecordComponents()) {
            if (!except.contains(component.getName())) {
                assertThat(value(component, actual)).as("component %s", component.getName())
                        .isEqualTo(value(component, expected));
            }
        }
    }

    private static Object value(RecordComponent component, Job job) {
        try {
            return component.getAccessor().invoke(job);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
