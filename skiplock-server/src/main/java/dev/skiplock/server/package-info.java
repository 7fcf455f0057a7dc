/**
 * The service ({@code skiplock serve}): the HTTP API of docs/API.md on Javalin (jobs, events as
 * NDJSON and SSE, admin, the hand-written OpenAPI description {@code openapi.json}), token auth and
 * tenants, the fallback mode, the built-in {@code command} kind ({@code CommandRunner}: a run's
 * process and files outlive its worker, {@code CommandRun},
 * {@code OutputTail}) and cron. A thin adapter: every job call goes once through the caller's
 * tenant-scoped {@code JobClient}, in-memory jobs ({@code "durable": false}) included, which the
 * library runs. Calls the public API of {@code dev.skiplock} only (checked by the conformance suite's
 * {@code PublicApiOnlyTest}); its JSON mapper is its own ({@code ServerJson}); no SQL. Public for the
 * CLI ({@code SkiplockServer}, {@code CronScheduler}, {@code Durations}); not a library API.
 */
package dev.skiplock.server;
