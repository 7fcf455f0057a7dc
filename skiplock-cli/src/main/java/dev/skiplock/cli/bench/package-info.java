/**
 * {@code skiplock bench MODE}: one class per mode (enqueue, drain, latency), each printing one JSON
 * line; {@code BenchDatabase} gives each run a fresh database. Measures for users and for SQLite; the
 * reference figures come from the shared peer harness. Not a library API.
 */
package dev.skiplock.cli.bench;
