package dev.skiplock.internal.store;

import java.util.UUID;

/** A lease the heartbeat extended, and whether a cancel was requested for its job. */
public record HeartbeatAck(HeldAttempt lease, boolean cancelRequested) {
}
