package dev.skiplock.internal.store;

import java.util.UUID;

/** One attempt of one job that a worker holds the lease of: the fencing token with {@code locked_by}. */
public record HeldAttempt(UUID id, int attempt) {
}
