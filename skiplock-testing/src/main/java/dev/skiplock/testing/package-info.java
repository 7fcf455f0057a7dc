/**
 * Helpers for tests of code that uses Skiplock (API, use with test scope): {@link
 * dev.skiplock.testing.SkiplockTest} gives a test a migrated PostgreSQL schema or SQLite file,
 * {@link dev.skiplock.testing.SkiplockAssertions} checks what was enqueued (also in one open
 * transaction), {@link dev.skiplock.testing.SkiplockTesting} runs jobs through the real engine
 * (one job, every available job, or what a {@link dev.skiplock.testing.TestClock} says is due).
 * Built on the public API; the few statements it runs itself are in {@code postgres.sql} and
 * {@code sqlite.sql} beside these classes.
 */
package dev.skiplock.testing;
