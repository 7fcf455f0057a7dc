package dev.skiplock;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The status of a job, as stored and as shown by the API. See DESIGN §1:
 * {@code waiting → queued → running → succeeded | failed | timed_out | cancelled};
 * a retry moves {@code running} back to {@code queued}.
 */
public enum JobStatus {
    WAITING, QUEUED, RUNNING, SUCCEEDED, FAILED, TIMED_OUT, CANCELLED;

    private static final Map<String, JobStatus> BY_WIRE_NAME = new HashMap<>();

    /** Made once: every outcome a worker writes names its status (was a lower-casing per call). */
    private final String wireName = name().toLowerCase(Locale.ROOT);

    static {
        for (JobStatus status : values()) {
            BY_WIRE_NAME.put(status.wireName(), status);
        }
    }

    /** The name used in the database and the API, e.g. {@code timed_out}. */
    @JsonValue
    public String wireName() {
        return wireName;
    }

    /** True for the four statuses a job never leaves without an explicit retry. */
    public boolean isTerminal() {
        return this == SUCCEEDED || this == FAILED || this == TIMED_OUT || this == CANCELLED;
    }

    /** Parses a wire name; unknown names are rejected naming the {@code status} field. */
    @JsonCreator
    public static JobStatus fromWireName(String name) {
        JobStatus status = name == null ? null : BY_WIRE_NAME.get(name);
        if (status != null) {
            return status;
        }
        throw new IllegalArgumentException("status: unknown status '" + name
                + "' (expected waiting, queued, running, succeeded, failed, timed_out or cancelled)");
    }
}
