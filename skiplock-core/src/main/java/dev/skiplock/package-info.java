/**
 * Skiplock's public API: build a {@link dev.skiplock.Skiplock} from a JDBC URL or {@code DataSource},
 * register {@link dev.skiplock.JobHandler}s per kind, enqueue {@link dev.skiplock.JobRequest}s (also inside
 * your own transaction) and inspect, cancel or retry {@link dev.skiplock.Job}s. Everything here is API.
 */
package dev.skiplock;
