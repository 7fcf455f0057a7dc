package dev.skiplock.internal.engine;

import com.fasterxml.jackson.databind.ObjectReader;
import dev.skiplock.Job;
import dev.skiplock.ResumableHandler;
import dev.skiplock.RetryPolicy;
import dev.skiplock.internal.Json;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The handlers registered by kind, with what the engine needs of them: args, retry policy, resumability. */
final class Handlers {
    /** Resumable handlers' clean-ups after an outcome ({@link #completed}): one virtual thread each. */
    private static final java.util.concurrent.ThreadFactory CLEAN_UPS =
            Thread.ofVirtual().name("skiplock-clean-up-", 0).factory();
    private static final Logger LOG = LoggerFactory.getLogger(Handlers.class);
    /** The clean-ups still running ({@link #awaitCleanUps}). */
    private final java.util.Set<Thread> cleanUps = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Map<String, HandlerBinding<?>> bindings;
    /** One reader per kind, built once: resolving the args type per job showed in drain profiles. */
    private final Map<String, ObjectReader> argsReaders = new HashMap<>();

    Handlers(Map<String, HandlerBinding<?>> bindings) {
        this.bindings = Map.copyOf(bindings);
        bindings.forEach((kind, binding) -> argsReaders.put(kind, Json.MAPPER.readerFor(binding.argsType())));
    }

    /** The binding of {@code kind}, or {@code null} if this worker has no handler for it. */
    HandlerBinding<?> of(String kind) {
        return bindings.get(kind);
    }

    boolean isResumable(String kind) {
        HandlerBinding<?> binding = bindings.get(kind);
        return binding != null && binding.handler() instanceof ResumableHandler<?>;
    }

    /** Kinds whose executions outlive their worker, as a JSON array: adopted only on their own host while it lives. */
    String resumableKindsJson() {
        return Json.write(bindings.keySet().stream().filter(this::isResumable).sorted().toList());
    }

    /** The kind's own retry policy; {@code null} uses the instance's default. */
    RetryPolicy retryPolicyOf(Job job) {
        HandlerBinding<?> binding = bindings.get(job.kind());
        return binding == null ? null : binding.retryPolicy();
    }

    <A> A readArgs(HandlerBinding<A> binding, Job job) {
        try {
            return binding.argsType().cast(argsReaders.get(job.kind()).readValue(job.args()));
        } catch (IOException | IllegalArgumentException | ClassCastException e) {
            throw new ArgsException("args do not match " + binding.argsType().getSimpleName() + " for kind "
                    + job.kind() + ": " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /**
     * Builds each kind's args deserializer now rather than for its first job: Jackson introspects a
     * type (a record's constructor, its annotations) the first time it reads one, which a worker's
     * first jobs otherwise wait for. Reading an empty object may fail for a type that requires
     * fields; the deserializer is built either way.
     */
    void prepareArgsReaders() {
        argsReaders.forEach((kind, reader) -> {
            try {
                reader.readValue(Json.object());
            } catch (IOException | RuntimeException expected) {
                // the type needs fields that {} lacks: its deserializer exists now all the same
            }
        });
    }

    /**
     * An execution's outcome was completed (or its job released): a resumable handler may drop
     * what it kept for adoption, on a thread of its own. This is called on the completer's thread,
     * and a clean-up there held every later outcome of the worker (the command runner deleting a run
     * directory of 100,000 files: about 3 s).
     */
    void completed(Execution execution) {
        Job job = execution.job();
        if (bindings.get(job.kind()) instanceof HandlerBinding<?> binding
                && binding.handler() instanceof ResumableHandler<?> resumable) {
            try {
                Thread cleanUp = CLEAN_UPS.newThread(() -> {
                    try {
                        resumable.completed(job.id(), execution.executionId());
                    } catch (Throwable e) {
                        // describe, since the exception's message may throw too
                        LOG.warn("{} could not clean up after job {}: {}", job.kind(), job.id(), Outcomes.describe(e));
                    } finally {
                        cleanUps.remove(Thread.currentThread());
                    }
                });
                cleanUps.add(cleanUp);
                cleanUp.start();
            } catch (Throwable e) {
                // Any throwable: this runs on the completer's thread, whose death would stop every outcome
                LOG.warn("{} could not start its clean-up after job {}: {}", job.kind(), job.id(), Outcomes.describe(e));
            }
        }
    }

    /**
     * Waits up to {@code limit} for the clean-ups started so far (the worker's close, after its last
     * outcomes): they run on virtual threads, which a process's exit ends wherever they are, and a
     * run directory half deleted stayed for good.
     */
    void awaitCleanUps(java.time.Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        for (Thread cleanUp : List.copyOf(cleanUps)) {
            long left = deadline - System.nanoTime();
            try {
                if (left <= 0 || !cleanUp.join(java.time.Duration.ofNanos(left))) {
                    LOG.warn("{} clean-ups after jobs' outcomes still run after {}; not waiting for them", cleanUps.size(), limit);
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Args that cannot be read into the handler's type: the job can never succeed as enqueued. */
    static final class ArgsException extends RuntimeException {
        ArgsException(String message) {
            super(message);
        }
    }
}
