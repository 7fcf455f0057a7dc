/**
 * The worker engine: per-queue fetchers, handler execution on virtual threads, batched fenced
 * completion, heartbeat, reaper and adoption, graceful shutdown; and in-memory jobs
 * ({@code MemoryJobs}), whose attempts run as the same {@code Execution}s with the same
 * {@code Outcomes}, kept in memory instead of the database. Not API.
 */
package dev.skiplock.internal.engine;
