/**
 * The worker engine, wired by {@code Engine} so that work flows one way: a {@code QueueClaimer} per
 * queue claims jobs and adopts orphans ({@code Claims}), the {@code JobRunner} runs their handlers on
 * virtual threads, the {@code Completer} writes each outcome, batched and fenced. Beside that flow,
 * the {@code LeaseKeeper} (heartbeat, reaper, settle backstop), {@code Timeouts} (on the configured
 * clock) and cancel notifications stop executions through the {@code Stopper}, and {@code Retention}
 * deletes old history; they wake claimers through a {@code Waker}, never by calling their owner.
 * In-memory jobs ({@code MemoryJobs}) run their attempts as the same {@code Execution}s with the
 * same {@code Outcomes}, kept in memory instead of the database. Not API; {@code Worker} is what {@code Skiplock} sees of it.
 */
package dev.skiplock.internal.engine;
