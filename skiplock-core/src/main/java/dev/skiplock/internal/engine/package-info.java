/**
 * The worker engine: per-queue fetchers, handler execution on virtual threads, batched fenced
 * completion, heartbeat, reaper and adoption, graceful shutdown. Not API.
 */
package dev.skiplock.internal.engine;
