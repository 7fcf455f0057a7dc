package dev.skiplock;

/** The result of {@link JobClient#enqueueOrReuse}: the job, and whether this call created it. */
public record Enqueued(Job job, boolean created) {
}
