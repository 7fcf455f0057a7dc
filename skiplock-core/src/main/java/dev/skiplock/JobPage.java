package dev.skiplock;

import java.util.List;
import java.util.UUID;

/** One page of {@link JobClient#list}; {@code nextCursor} is {@code null} on the last page. */
public record JobPage(List<Job> jobs, UUID nextCursor) {
    public JobPage {
        jobs = List.copyOf(jobs);
    }
}
