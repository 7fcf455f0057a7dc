package dev.skiplock.internal.store;

import java.util.UUID;

/**
 * Who claims or adopts jobs of one queue, and under which lease.
 *
 * @param token          a fresh random token drawn for this one statement: never reused
 * @param resumableKinds JSON array of the kinds whose executions outlive the worker (their jobs are
 *                       tied to {@code host} when claimed)
 */
public record ClaimParams(String queue, String worker, String host, UUID token, long leaseMillis,
        String resumableKinds) {
}
