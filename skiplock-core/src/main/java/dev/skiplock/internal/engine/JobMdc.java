package dev.skiplock.internal.engine;

import dev.skiplock.Job;
import java.util.List;
import org.slf4j.MDC;
import org.slf4j.helpers.NOPMDCAdapter;

/**
 * The job a handler runs, in SLF4J's MDC for the handler's thread while it runs, so every line the
 * handler (or a library under it) logs names its job: {@code skiplock.jobId}, {@code skiplock.kind},
 * {@code skiplock.queue}, {@code skiplock.attempt}, {@code skiplock.tenant}. Put and cleared by
 * {@link JobThreadContext}.
 */
final class JobMdc {
    static final String JOB_ID = "skiplock.jobId";
    static final String KIND = "skiplock.kind";
    static final String QUEUE = "skiplock.queue";
    static final String ATTEMPT = "skiplock.attempt";
    static final String TENANT = "skiplock.tenant";
    /** Every key {@link #put} sets. */
    static final List<String> KEYS = List.of(JOB_ID, KIND, QUEUE, ATTEMPT, TENANT);

    private JobMdc() {
    }

    /**
     * Whether the logging backend keeps an MDC at all: SLF4J without a provider (or with one
     * that has none) discards it, and then the job's values are not made (issue #12: the id's and
     * attempt's strings, per job, for no reader).
     */
    static boolean kept() {
        return !(MDC.getMDCAdapter() instanceof NOPMDCAdapter);
    }

    static void put(Job job) {
        MDC.put(JOB_ID, job.id().toString());
        MDC.put(KIND, job.kind());
        MDC.put(QUEUE, job.queue());
        MDC.put(ATTEMPT, Integer.toString(job.attempt()));
        MDC.put(TENANT, job.tenant());
    }
}
