package dev.skiplock.internal.engine;

import dev.skiplock.internal.store.JobStore;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the first-use costs of the claim → execute → complete path before the worker reports it
 * started, so its first jobs do not pay them (issue #12: a cold worker made its first jobs wait
 * ~60 ms). Nothing is claimed or written: the args deserializers are built, {@code complete_jobs}
 * runs once with no outcome (the statement's first parse and plan, the completer's JSON writer),
 * and one virtual thread starts and ends. Failing here never stops a start: it only costs the time.
 */
final class Warmup {
    private static final Logger LOG = LoggerFactory.getLogger(Warmup.class);

    private Warmup() {
    }

    static void run(Handlers handlers, JobStore store) {
        long started = System.nanoTime();
        try {
            handlers.prepareArgsReaders();
            store.completeJobs(List.of());
            Thread.ofVirtual().start(() -> { }).join();
        } catch (RuntimeException e) {
            LOG.debug("warm-up incomplete: {}", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.debug("warm-up took {} ms", (System.nanoTime() - started) / 1_000_000);
    }
}
