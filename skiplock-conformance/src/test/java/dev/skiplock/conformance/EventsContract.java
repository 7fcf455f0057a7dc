package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.skiplock.Job;
import dev.skiplock.JobEvent;
import dev.skiplock.JobNotFoundException;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStateException;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** DESIGN §5: the event log, progress, queue pause/resume, the worker registry, delete. */
abstract class EventsContract extends ContractBase {

    record Work(int lines) {
    }

    private static List<String> statuses(List<JobEvent> events) {
        return events.stream().filter(event -> event.type().equals("status")).map(JobEvent::status).toList();
    }

    @Test
    void everyStatusChangeIsAnEventInOrder() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("flaky", Work.class, context -> {
                    if (context.attempt() == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("flaky", new Work(0)).withMaxAttempts(2));
        awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);

        List<JobEvent> events = worker.events(job.id(), 0, 100);
        assertThat(statuses(events)).containsExactly("queued", "running", "queued", "running", "succeeded");
        assertThat(events).extracting(JobEvent::seq).isSorted().doesNotHaveDuplicates();
        assertThat(events).extracting(JobEvent::attempt).containsExactly(0, 1, 1, 2, 2);
        assertThat(events.get(2).message()).isEqualTo("java.lang.IllegalStateException: first attempt fails");
        assertThat(events.getLast().isTerminal()).isTrue();
        assertThat(worker.events(job.id(), events.get(2).seq(), 100)).hasSize(2);
    }

    /**
     * A job's events are rows (its enqueue, a failure, log lines) and events read from its row (the
     * last attempt's start and success): pages of one, of two and of all list the same events, the
     * ones after each page's last seq, in seq order; another tenant sees none. SQLite reads each part
     * in seq order and stops at the page's end, where it sorted all of them.
     */
    @Test
    void pagesOfAnySizeListTheSameEventsInOrder() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("flaky", Work.class, context -> {
                    for (int i = 0; i < context.args().lines(); i++) {
                        context.log("stdout", "attempt " + context.attempt() + " line " + i);
                    }
                    if (context.attempt() == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("flaky", new Work(3)).withMaxAttempts(2));
        awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);

        List<JobEvent> all = worker.events(job.id(), 0, 100);
        assertThat(all).extracting(event -> event.type() + ":" + (event.type().equals("status") ? event.status() : event.message()))
                .containsExactly("status:queued", "status:running", "log:attempt 1 line 0", "log:attempt 1 line 1",
                        "log:attempt 1 line 2", "status:queued", "status:running", "log:attempt 2 line 0",
                        "log:attempt 2 line 1", "log:attempt 2 line 2", "status:succeeded");
        for (int size : new int[] {1, 2}) {
            List<JobEvent> paged = new ArrayList<>();
            List<JobEvent> page = worker.events(job.id(), 0, size);
            while (!page.isEmpty()) {
                assertThat(page).as("a page of %d", size).hasSizeLessThanOrEqualTo(size);
                paged.addAll(page);
                page = worker.events(job.id(), page.getLast().seq(), size);
            }
            assertThat(paged).as("pages of %d", size).isEqualTo(all);
        }
        assertThat(worker.tenant("other").events(job.id(), 0, 100)).isEmpty();
    }

    @Test
    void cancelRetryAndDependencyFailureAreEventsToo() {
        Skiplock worker = started(builder(config -> config.queue("default", 1).queue("parents", 1))
                .handler("broken", Work.class, context -> {
                    throw new IllegalStateException("broken on purpose");
                })
                .handler("work", Work.class, context -> JobOutcome.complete()));
        Job twice = worker.enqueue(JobRequest.of("broken", new Work(0)).withMaxAttempts(2));
        Job held = worker.enqueue(JobRequest.of("work", new Work(0)).withQueue("held"));
        worker.cancel(held.id());
        worker.retry(held.id());
        // The parent waits on a paused queue until its dependent is enqueued, so the dependent is
        // always born waiting (otherwise a quick worker fails the parent first).
        worker.pauseQueue("parents");
        Job broken = worker.enqueue(JobRequest.of("broken", new Work(0)).withMaxAttempts(1).withQueue("parents"));
        Job dependent = worker.enqueue(JobRequest.of("work", new Work(0)).withDependsOn(List.of(broken.id())));
        worker.resumeQueue("parents");
        awaitStatus(worker, dependent.id(), JobStatus.FAILED);
        Job bornFailed = worker.enqueue(JobRequest.of("work", new Work(0)).withDependsOn(List.of(broken.id())));
        awaitStatus(worker, twice.id(), JobStatus.FAILED);

        assertThat(worker.events(held.id(), 0, 100)).extracting(JobEvent::status, JobEvent::attempt)
                .containsExactly(tuple("queued", 0), tuple("cancelled", 0), tuple("queued", 0));
        assertThat(worker.events(broken.id(), 0, 100)).extracting(JobEvent::status, JobEvent::message)
                .containsExactly(tuple("queued", null), tuple("running", null),
                        tuple("failed", "java.lang.IllegalStateException: broken on purpose"));
        assertThat(worker.events(dependent.id(), 0, 100)).extracting(JobEvent::status, JobEvent::message)
                .containsExactly(tuple("waiting", null), tuple("failed", "dependency " + broken.id() + " failed"));
        assertThat(worker.events(bornFailed.id(), 0, 100)).extracting(JobEvent::status, JobEvent::message)
                .containsExactly(tuple("failed", null));
        // An event carries last_error only when its change set a new one: the same error again is not repeated.
        assertThat(worker.events(twice.id(), 0, 100)).extracting(JobEvent::status, JobEvent::message)
                .containsExactly(tuple("queued", null), tuple("running", null),
                        tuple("queued", "java.lang.IllegalStateException: broken on purpose"), tuple("running", null),
                        tuple("failed", null));
    }

    /**
     * A retried success keeps the first attempt's events exactly as they were listed before (seq,
     * time, attempt): PostgreSQL reads the enqueue, start and success events from the job row
     * (migration 0012) and must write them as rows before the retry and the next claim change it.
     */
    @Test
    void aSucceededJobRetriedKeepsEveryEventOfItsFirstRun() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        Job job = worker.enqueue(JobRequest.of("work", new Work(0)));
        awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        List<JobEvent> firstRun = worker.events(job.id(), 0, 100);
        assertThat(firstRun).extracting(JobEvent::status, JobEvent::attempt)
                .containsExactly(tuple("queued", 0), tuple("running", 1), tuple("succeeded", 1));

        worker.retry(job.id());
        awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);

        List<JobEvent> events = worker.events(job.id(), 0, 100);
        assertThat(events.subList(0, 3)).isEqualTo(firstRun);
        assertThat(events.subList(3, events.size())).extracting(JobEvent::status, JobEvent::attempt)
                .containsExactly(tuple("queued", 1), tuple("running", 2), tuple("succeeded", 2));
        assertThat(events).extracting(JobEvent::seq).isSorted().doesNotHaveDuplicates();
        assertThat(worker.events(job.id(), firstRun.get(1).seq(), 2)).isEqualTo(events.subList(2, 4));
    }

    /** A large batch (PostgreSQL: COPY, its events' seqs drawn by bulk_clock) has each job's first event, in order. */
    @Test
    void everyJobOfALargeBatchHasItsQueuedEvent() {
        Skiplock client = client();
        List<Job> jobs = client.enqueueMany(IntStream.range(0, 150)
                .mapToObj(i -> JobRequest.of("work", new Work(i)).withQueue("idle")).toList());

        List<JobEvent> first = jobs.stream().map(job -> client.events(job.id(), 0, 10))
                .map(events -> {
                    assertThat(events).extracting(JobEvent::status, JobEvent::attempt).containsExactly(tuple("queued", 0));
                    return events.getFirst();
                }).toList();
        assertThat(first).extracting(JobEvent::seq).isSorted().doesNotHaveDuplicates();
        assertThat(first).extracting(JobEvent::jobId).containsExactlyElementsOf(jobs.stream().map(Job::id).toList());
    }

    @Test
    void logLinesArriveInOrderBeforeTheTerminalStatus() throws Exception {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("chatty", Work.class, context -> {
                    for (int i = 1; i <= context.args().lines(); i++) {
                        context.log(i % 2 == 0 ? "stderr" : "stdout", "line " + i);
                    }
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("chatty", new Work(50)));

        List<JobEvent> seen = new ArrayList<>();
        long after = 0;
        while (seen.isEmpty() || !seen.getLast().isTerminal()) {
            List<JobEvent> batch = worker.awaitEvents(job.id(), after, 1000, WAIT);
            assertThat(batch).as("events within %s", WAIT).isNotEmpty();
            seen.addAll(batch);
            after = batch.getLast().seq();
        }
        List<JobEvent> logs = seen.stream().filter(event -> event.type().equals("log")).toList();
        assertThat(logs).hasSize(50);
        assertThat(logs.get(0).message()).isEqualTo("line 1");
        assertThat(logs.get(0).stream()).isEqualTo("stdout");
        assertThat(logs.get(1).stream()).isEqualTo("stderr");
        assertThat(logs.getLast().message()).isEqualTo("line 50");
        assertThat(logs).allSatisfy(event -> assertThat(event.attempt()).isEqualTo(1));
        assertThat(seen.getLast().status()).isEqualTo("succeeded");
    }

    @Test
    void progressIsStoredOnTheJobAndLogged() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("steps", Work.class, context -> {
                    context.progress(Map.of("done", 1, "of", 2));
                    context.progress(Map.of("done", 2, "of", 2));
                    context.progress(Map.of("done", 2, "of", 2)); // a repeat is still an update: logged too
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("steps", new Work(0)));

        Job done = awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        assertThat(done.progress().get("done").asInt()).isEqualTo(2);
        List<JobEvent> progress = worker.events(job.id(), 0, 100).stream()
                .filter(event -> event.type().equals("progress")).toList();
        assertThat(progress).extracting(event -> event.data().get("done").asInt()).containsExactly(1, 2, 2);
    }

    @Test
    void awaitEventsWakesAFollowerWhenTheJobFinishes() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("wait", Work.class, context -> {
                    release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("wait", new Work(0)));
        awaitStatus(worker, job.id(), JobStatus.RUNNING);
        long lastSeen = worker.events(job.id(), 0, 100).getLast().seq();

        release.countDown();
        List<JobEvent> next = worker.awaitEvents(job.id(), lastSeen, 100, WAIT);

        assertThat(statuses(next)).containsExactly("succeeded");
        assertThatThrownBy(() -> worker.tenant("other").awaitEvents(job.id(), 0, 10, Duration.ofMillis(10)))
                .isInstanceOf(JobNotFoundException.class);
    }

    @Test
    void pausedQueueIsNotClaimedUntilResumed() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("work", Work.class, context -> JobOutcome.complete()));
        worker.pauseQueue("default");
        Job job = worker.enqueue(JobRequest.of("work", new Work(0)));

        assertThat(worker.pausedQueues()).containsExactly("default");
        await().during(Duration.ofMillis(500)).atMost(WAIT)
                .until(() -> worker.get(job.id()).orElseThrow().status() == JobStatus.QUEUED);

        worker.resumeQueue("default");
        awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);
        assertThat(worker.pausedQueues()).isEmpty();
    }

    @Test
    void deleteRemovesATerminalJobAndItsEventsButRefusesALiveOne() {
        Skiplock client = client();
        Job live = client.enqueue(JobRequest.of("work", new Work(0)));
        assertThatThrownBy(() -> client.delete(live.id())).isInstanceOf(JobStateException.class);

        client.cancel(live.id());
        client.delete(live.id());

        assertThat(client.get(live.id())).isEmpty();
        assertThat(client.events(live.id(), 0, 10)).isEmpty();
        assertThatThrownBy(() -> client.delete(live.id())).isInstanceOf(JobNotFoundException.class);
    }
}
