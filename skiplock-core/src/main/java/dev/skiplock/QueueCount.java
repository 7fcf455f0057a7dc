package dev.skiplock;

/** How many jobs of one tenant are in {@code status} on {@code queue}. */
public record QueueCount(String queue, JobStatus status, long jobs) {
}
