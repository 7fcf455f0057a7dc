package dev.skiplock.internal.store;

import java.util.UUID;

/**
 * One execution's hold on a job: the lease token every write of that execution is fenced on (a
 * fresh random token at each claim and each adoption, never reused), with the attempt it runs.
 */
public record HeldAttempt(UUID id, int attempt, UUID token) {
}
