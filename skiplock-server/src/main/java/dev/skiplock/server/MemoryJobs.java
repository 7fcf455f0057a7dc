package dev.skiplock.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobContext;
import dev.skiplock.JobEvent;
import dev.skiplock.JobHandler;
import dev.skiplock.JobNotFoundException;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStateException;
import dev.skiplock.JobStatus;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.Uuid7;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * In-memory jobs ({@code "durable": false}, DESIGN §5): run at once in this process, answer the same
 * status, events and cancel calls as durable jobs, and are lost when the process exits (never
 * restarted, never retried). Only the {@code command} kind runs here.
 */
final class MemoryJobs {
    private final Map<UUID, MemoryJob> jobs = new ConcurrentHashMap<>();
    private final AtomicLong seq = new AtomicLong();
    private final JobHandler<JsonNode> runner;

    MemoryJobs(JobHandler<JsonNode> runner) {
        this.runner = runner;
    }

    Job submit(String tenant, JobRequest request) {
        if (!SubmitParser.COMMAND.equals(request.kind())) {
            throw ApiError.invalid("durable", "in-memory jobs run kind command only");
        }
        if (!request.dependsOn().isEmpty() || request.uniqueKey() != null || request.runAt() != null) {
            throw ApiError.invalid("durable", "in-memory jobs take no dependsOn, uniqueKey or runAt");
        }
        Instant now = Instant.now();
        JsonNode args = Json.MAPPER.valueToTree(request.args());
        Job job = Job.builder().id(Uuid7.next()).tenant(tenant).queue(request.queue()).kind(request.kind())
                .args(args).metadata(Json.MAPPER.valueToTree(request.metadata())).traceparent(request.traceparent())
                .priority(request.priority()).status(JobStatus.QUEUED).maxAttempts(1).availableAt(now)
                .requestedAt(now).timeoutSeconds(request.timeout() == null ? null : (int) request.timeout().toSeconds())
                .build();
        MemoryJob memory = new MemoryJob(job);
        jobs.put(job.id(), memory);
        memory.event("status", "queued", null, null, null);
        memory.thread = Thread.ofVirtual().name("skiplock-memory-job").start(memory::run);
        return memory.job;
    }

    Optional<Job> get(String tenant, UUID id) {
        return find(tenant, id).map(memory -> memory.job);
    }

    boolean owns(String tenant, UUID id) {
        return find(tenant, id).isPresent();
    }

    Job cancel(String tenant, UUID id) {
        MemoryJob memory = find(tenant, id).orElseThrow(() -> new JobNotFoundException(id));
        synchronized (memory) {
            if (memory.job.status().isTerminal()) {
                throw new JobStateException("job " + id + " is already " + memory.job.status().wireName(), memory.job);
            }
            memory.stop = JobStatus.CANCELLED;
            memory.update(memory.job.status(), null, true);
        }
        memory.thread.interrupt();
        return memory.job;
    }

    void delete(String tenant, UUID id) {
        MemoryJob memory = find(tenant, id).orElseThrow(() -> new JobNotFoundException(id));
        if (!memory.job.status().isTerminal()) {
            throw new JobStateException("job " + id + " is " + memory.job.status().wireName() + ", not terminal",
                    memory.job);
        }
        jobs.remove(id);
    }

    List<JobEvent> events(String tenant, UUID id, long afterSeq, int limit, long waitMillis)
            throws InterruptedException {
        MemoryJob memory = find(tenant, id).orElseThrow(() -> new JobNotFoundException(id));
        long deadline = System.currentTimeMillis() + waitMillis;
        synchronized (memory) {
            while (true) {
                List<JobEvent> found = memory.events.stream().filter(event -> event.seq() > afterSeq).limit(limit)
                        .toList();
                long left = deadline - System.currentTimeMillis();
                if (!found.isEmpty() || left <= 0) {
                    return found;
                }
                memory.wait(left);
            }
        }
    }

    private Optional<MemoryJob> find(String tenant, UUID id) {
        MemoryJob memory = jobs.get(id);
        return memory != null && memory.job.tenant().equals(tenant) ? Optional.of(memory) : Optional.empty();
    }

    private final class MemoryJob implements JobContext<JsonNode> {
        private volatile Job job;
        /** An in-memory job runs once: its one execution's id. */
        private final UUID executionId = UUID.randomUUID();
        private final List<JobEvent> events = new ArrayList<>();
        private volatile Thread thread;
        /** Why the engine stopped it (cancel, timeout), or null. */
        private volatile JobStatus stop;

        MemoryJob(Job job) {
            this.job = job;
        }

        void run() {
            Thread timeout = null;
            synchronized (this) {
                if (stop != null) {
                    finish(stop, stop == JobStatus.CANCELLED ? "cancelled before it ran" : null, null);
                    return;
                }
                job = copy(JobStatus.RUNNING, 1, Instant.now(), null, null, job.cancelRequested(), null);
                event("status", "running", null, null, null);
            }
            if (job.timeoutSeconds() != null) {
                long millis = job.timeoutSeconds() * 1000L;
                Thread runnerThread = Thread.currentThread();
                timeout = Thread.ofVirtual().start(() -> {
                    try {
                        Thread.sleep(millis); // the timer of this one job; interrupted when the job ends first
                        stop = JobStatus.TIMED_OUT;
                        runnerThread.interrupt();
                    } catch (InterruptedException e) {
                        // the job ended first
                    }
                });
            }
            JobStatus status;
            String error = null;
            JsonNode result = null;
            try {
                JobOutcome outcome = runner.handle(this);
                if (outcome instanceof JobOutcome.Fail fail) {
                    status = JobStatus.FAILED;
                    error = fail.reason();
                } else if (outcome instanceof JobOutcome.Cancel cancel) {
                    status = JobStatus.CANCELLED;
                    error = cancel.reason();
                } else {
                    status = JobStatus.SUCCEEDED;
                    result = outcome instanceof JobOutcome.Complete complete && complete.result() != null
                            ? Json.MAPPER.valueToTree(complete.result()) : null;
                }
            } catch (Exception e) {
                status = JobStatus.FAILED;
                error = e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            } finally {
                if (timeout != null) {
                    timeout.interrupt();
                }
                if (runner instanceof dev.skiplock.ResumableHandler<JsonNode> resumable) {
                    resumable.settled(job.id(), executionId); // nothing outlives a server for an in-memory job
                }
            }
            JobStatus stopped = stop;
            if (stopped == JobStatus.CANCELLED) {
                finish(JobStatus.CANCELLED, "cancelled while running", null);
            } else if (stopped == JobStatus.TIMED_OUT) {
                finish(JobStatus.TIMED_OUT, "timed out after " + job.timeoutSeconds() + "s in attempt 1", null);
            } else {
                finish(status, error, result);
            }
        }

        private synchronized void finish(JobStatus status, String error, JsonNode result) {
            job = copy(status, job.attempt(), job.startedAt(), Instant.now(), error, job.cancelRequested(), result);
            event("status", status.wireName(), null, null, null, error);
        }

        synchronized void update(JobStatus status, String error, boolean cancelRequested) {
            job = copy(status, job.attempt(), job.startedAt(), job.finishedAt(), error, cancelRequested, job.result());
        }

        private Job copy(JobStatus status, int attempt, Instant startedAt, Instant finishedAt, String error,
                boolean cancelRequested, JsonNode result) {
            return job.toBuilder().status(status).attempt(attempt).startedAt(startedAt).finishedAt(finishedAt)
                    .lastError(error).cancelRequested(cancelRequested).result(result).build();
        }

        void event(String type, String status, String stream, String message, JsonNode data) {
            event(type, status, stream, message, data, null);
        }

        private synchronized void event(String type, String status, String stream, String message, JsonNode data,
                String statusMessage) {
            events.add(new JobEvent(seq.incrementAndGet(), Instant.now(), job.id(), job.attempt(), type, status, null,
                    stream, statusMessage != null ? statusMessage : message, data));
            notifyAll();
        }

        @Override
        public JsonNode args() {
            return job.args();
        }

        @Override
        public Job job() {
            return job;
        }

        @Override
        public UUID executionId() {
            return executionId;
        }

        @Override
        public boolean stopRequested() {
            return stop != null;
        }

        @Override
        public void log(String stream, String message) {
            event("log", null, stream, message, null);
        }

        @Override
        public boolean progress(Object data) {
            event("progress", null, null, null, Json.MAPPER.valueToTree(data));
            return true;
        }
    }
}
