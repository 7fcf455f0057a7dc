package dev.skiplock.internal.store;

import java.util.UUID;

/**
 * A lease the heartbeat found held, whether it extended it (not when another transaction held the
 * job's row: PostgreSQL's heartbeat skips it), and whether a cancel was requested for its job.
 */
public record HeartbeatAck(HeldAttempt lease, boolean cancelRequested, boolean extended) {
}
