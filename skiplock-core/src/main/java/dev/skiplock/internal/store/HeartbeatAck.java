package dev.skiplock.internal.store;

/** A held attempt whose lease the heartbeat extended, and whether a cancel was requested for it. */
public record HeartbeatAck(HeldAttempt attempt, boolean cancelRequested) {
}
