package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import org.slf4j.MDC;

/**
 * The job a handler runs, in SLF4J's MDC for the handler's thread while it runs, so every line the
 * handler (or a library under it) logs names its job: {@code skiplock.jobId}, {@code skiplock.kind},
 * {@code skiplock.queue}, {@code skiplock.attempt}, {@code skiplock.tenant}.
 */
final class JobMdc implements AutoCloseable {
    static final String JOB_ID = "skiplock.jobId";
    static final String KIND = "skiplock.kind";
    static final String QUEUE = "skiplock.queue";
    static final String ATTEMPT = "skiplock.attempt";
    static final String TENANT = "skiplock.tenant";

    private JobMdc(Job job) {
        put(job);
    }

    /** Puts {@code job} in the MDC until {@link #close}. */
    static JobMdc of(Job job) {
        return new JobMdc(job);
    }

    static void put(Job job) {
        MDC.put(JOB_ID, job.id().toString());
        MDC.put(KIND, job.kind());
        MDC.put(QUEUE, job.queue());
        MDC.put(ATTEMPT, Integer.toString(job.attempt()));
        MDC.put(TENANT, job.tenant());
    }

    @Override
    public void close() {
        clear();
    }

    static void clear() {
        MDC.remove(JOB_ID);
        MDC.remove(KIND);
        MDC.remove(QUEUE);
        MDC.remove(ATTEMPT);
        MDC.remove(TENANT);
    }
}
