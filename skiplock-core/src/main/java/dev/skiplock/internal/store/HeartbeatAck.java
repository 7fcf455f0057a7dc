package dev.skiplock.internal.store;

import java.util.UUID;

/** A lease the heartbeat extended (job and token), and whether a cancel was requested for the job. */
public record HeartbeatAck(UUID id, UUID token, boolean cancelRequested) {
}
