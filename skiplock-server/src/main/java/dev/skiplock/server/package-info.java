/**
 * The service ({@code skiplock serve}): the HTTP API of docs/API.md on Javalin (jobs, events as
 * NDJSON and SSE, admin), token auth and tenants, the fallback mode, the built-in {@code command}
 * kind ({@code CommandRunner}: a run's process and files outlive its worker, {@code CommandRun},
 * {@code OutputTail}), in-memory jobs and cron. Calls the public API of {@code dev.skiplock} only; no
 * SQL. Public for the CLI ({@code SkiplockServer}, {@code CronScheduler}); not a library API.
 */
package dev.skiplock.server;
