package dev.skiplock.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobContext;
import dev.skiplock.JobOutcome;
import dev.skiplock.ResumableHandler;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The built-in {@code command} kind: runs the stored argv (no shell) with the job's env and cwd.
 * stdout and stderr lines become {@code log} events (Skiplock's notes about the run: stream
 * {@value #NOTES}); exit code 0 succeeds, anything else fails
 * with the code in {@code lastError}. When the engine interrupts the handler (timeout, cancel,
 * shutdown) the process tree gets SIGTERM, then SIGKILL after the grace period.
 *
 * <p>The process outlives its worker ({@link CommandRun}): when the worker dies, the worker that
 * adopts the job resumes it — finalizes a finished run from its recorded exit code and output,
 * waits for a running one (a cancel still reaches it), and reports a vanished one as not found.
 * A worker that merely lost its lease leaves the process alone for the adopter.
 */
final class CommandRunner implements ResumableHandler<JsonNode> {
    /** Variables passed through from the server's environment; everything else comes from the job. */
    private static final List<String> INHERITED = List.of("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR");
    private static final long STOP_CHECK_MILLIS = 100;
    /**
     * The stream of Skiplock's own notes about a run (an output file it cannot read, a step file it
     * cannot record). Not the command's stderr: an adopter resumes each output file after the place
     * of its stream's last recorded line, so a note recorded there made it skip a line the command printed.
     */
    static final String NOTES = "skiplock";

    private final Duration grace;
    private final Path runs;
    /** A larger step file is refused unread ({@link StepFiles}). */
    private final int maxStepFileBytes;
    /** What a run keeps of each output stream, on disk and so in its log ({@link CommandRun}). */
    private final long maxOutputBytes;

    CommandRunner(Duration grace, Path runs, int maxStepFileBytes, long maxOutputBytes) {
        this.grace = grace;
        this.runs = RunDirectory.own(runs);
        this.maxStepFileBytes = maxStepFileBytes;
        this.maxOutputBytes = maxOutputBytes;
    }

    @Override
    public JobOutcome handle(JobContext<JsonNode> context) throws Exception {
        JsonNode args = context.args();
        List<String> argv = new ArrayList<>();
        args.path("argv").forEach(part -> argv.add(part.asText()));
        if (argv.isEmpty()) {
            return JobOutcome.cancel("args.argv is empty; nothing to run");
        }
        Map<String, String> environment = environment(context, args);
        File cwd = args.hasNonNull("cwd") ? new File(args.get("cwd").asText()) : null;
        if (HostTools.find(argv.getFirst(), environment.get("PATH"), cwd).isEmpty()) {
            throw new IOException("cannot start " + argv.getFirst() + ": no such executable"
                    + (argv.getFirst().contains("/") ? "" : " on PATH"));
        }
        CommandRun run = run(context);
        StepFiles steps = new StepFiles(run.steps(), context, maxStepFileBytes);
        environment.put(StepFiles.VARIABLE, run.steps().toString());
        Process process;
        try {
            process = run.start(argv, environment, cwd, maxOutputBytes, steps::writeFinished);
        } catch (IOException e) {
            throw new IOException("cannot start " + argv.getFirst() + ": " + e.getMessage(), e);
        }
        OptionalInt code = follow(context, run, steps, process.onExit(), process.toHandle(),
                new ProcessGroup(process.pid()), 0, 0); // setsid runs the wrapper in its own process: its pid leads
        return outcome(code.orElse(process.exitValue()));
    }

    @Override
    public Optional<JobOutcome> resume(JobContext<JsonNode> context) throws Exception {
        CommandRun run = run(context);
        long stdoutLogged = context.loggedLines("stdout");
        long stderrLogged = context.loggedLines("stderr");
        Optional<ProcessHandle> alive = run.process();
        StepFiles steps = new StepFiles(run.steps(), context, maxStepFileBytes);
        if (alive.isPresent()) {
            OptionalInt code = follow(context, run, steps, alive.get().onExit(), alive.get(),
                    new ProcessGroup(alive.get().pid()), stdoutLogged, stderrLogged);
            return code.isPresent() ? Optional.of(outcome(code.getAsInt())) : Optional.empty();
        }
        OptionalInt code = run.exitCode(); // read after the liveness check: a run ending in between is finished
        if (code.isEmpty()) {
            return Optional.empty(); // the process is gone without a recorded exit: not found
        }
        follow(context, run, steps, CompletableFuture.completedFuture(null), null, run.groupLeftBehind().orElse(null),
                stdoutLogged, stderrLogged);
        return Optional.of(outcome(code.getAsInt()));
    }

    @Override
    public void completed(UUID jobId, UUID executionId) {
        CommandRun.of(runs, jobId, executionId).deleteWhenExited();
    }

    private CommandRun run(JobContext<JsonNode> context) {
        return CommandRun.of(runs, context.job().id(), context.executionId());
    }

    /**
     * Sends the run's output lines as log events and records its step files until the process has
     * exited and every file is read, then returns the recorded exit code. Stopped (interrupted, or a stop seen while
     * waiting: cancel, timeout, shutdown, also one requested before this execution was found):
     * terminates the process, unless the lease was lost and another worker may still adopt this
     * execution, in which case the process is left to it. Once the command has exited, what it left
     * running in its process group ({@code group}, null if unknown) is ended too: a background
     * process still writing its output would keep the output's tail, and the attempt, going for good.
     */
    private OptionalInt follow(JobContext<JsonNode> context, CommandRun run, StepFiles steps, CompletableFuture<?> exit,
            ProcessHandle process, ProcessGroup group, long stdoutLogged, long stderrLogged) throws Exception {
        Thread stdout = Thread.ofVirtual().start(new OutputTail(run.stdout(), "stdout", stdoutLogged, context, exit::isDone));
        Thread stderr = Thread.ofVirtual().start(new OutputTail(run.stderr(), "stderr", stderrLogged, context, exit::isDone));
        CutNotes cutNotes = new CutNotes(context, run);
        try {
            awaitExit(context, run, exit, steps, cutNotes);
            endLeftovers(context, group);
            stdout.join();
            stderr.join();
            cutNotes.logNew();
            steps.record(); // the last ones, before the outcome
        } catch (InterruptedException e) {
            if (context.leaseLost() && context.mayBeResumed()) {
                stdout.interrupt(); // the worker that adopts the job follows the process from here
                stderr.interrupt();
            } else if (process != null) {
                terminate(process, group);
                if (context.leaseLost()) {
                    run.deleteWhenExited(); // nobody will resume it
                }
            }
            throw e;
        } catch (ExecutionException e) {
            stopFollowing(process, group, stdout, stderr);
            throw new IllegalStateException("waiting for the command failed", e.getCause());
        } catch (Exception | Error e) {
            stopFollowing(process, group, stdout, stderr); // the attempt ends here: no process may outlive it unseen
            throw e;
        }
        return run.exitCode();
    }

    /**
     * Waits for the command's exit: its code recorded, or the wrapper gone (which waits for its
     * output keepers, and they for whatever still holds the output, which only the runner ends).
     * Looks at the stop flag (and for new step files and cut streams) every
     * {@link #STOP_CHECK_MILLIS} as well: an interrupt is the fast path, the flag the one that cannot be missed.
     */
    private static void awaitExit(JobContext<JsonNode> context, CommandRun run, CompletableFuture<?> exit,
            StepFiles steps, CutNotes cutNotes) throws Exception {
        while (true) {
            if (context.stopRequested()) {
                throw new InterruptedException("stop requested");
            }
            steps.record();
            cutNotes.logNew();
            if (run.exitRecorded()) {
                return;
            }
            try {
                exit.get(STOP_CHECK_MILLIS, TimeUnit.MILLISECONDS);
                return;
            } catch (TimeoutException e) {
                // look at the flag again
            }
        }
    }

    /**
     * Says, once per stream and follower, which output streams the run cut short: their log ends
     * at the limit, the command ran on. Looked for while the command runs, so a run stopped after
     * its cut says so too. (An adopter says it again.)
     */
    private static final class CutNotes {
        private final JobContext<JsonNode> context;
        private final CommandRun run;
        private final java.util.Set<String> logged = new java.util.HashSet<>();

        CutNotes(JobContext<JsonNode> context, CommandRun run) {
            this.context = context;
            this.run = run;
        }

        void logNew() {
            for (String stream : List.of("stdout", "stderr")) {
                if (!logged.contains(stream) && run.cut(stream)) {
                    logged.add(stream);
                    // the size kept, not this worker's limit: an adopter may have been given another
                    context.log(NOTES, "skiplock: " + stream + " passed " + run.kept(stream)
                            + " bytes; the rest of it was not kept");
                }
            }
        }
    }

    private static JobOutcome outcome(int exitCode) {
        if (exitCode == 0) {
            return JobOutcome.complete(Map.of("exitCode", 0));
        }
        return JobOutcome.fail("exit code " + exitCode);
    }

    private static Map<String, String> environment(JobContext<JsonNode> context, JsonNode args) {
        Map<String, String> environment = new HashMap<>();
        Map<String, String> inherited = System.getenv();
        INHERITED.forEach(name -> {
            if (inherited.containsKey(name)) {
                environment.put(name, inherited.get(name));
            }
        });
        args.path("env").fields().forEachRemaining(entry -> environment.put(entry.getKey(), entry.getValue().asText()));
        environment.put("SKIPLOCK_JOB_ID", context.job().id().toString());
        environment.put("SKIPLOCK_ATTEMPT", Integer.toString(context.attempt()));
        return environment;
    }

    /**
     * Ends what the command left running in its group once it exited; a failure to (no shell to
     * signal with) is noted, and never fails a run that has ended.
     */
    private void endLeftovers(JobContext<JsonNode> context, ProcessGroup group) throws InterruptedException {
        if (group == null) {
            return;
        }
        try {
            group.end(grace);
        } catch (java.io.UncheckedIOException e) {
            context.log(NOTES, "skiplock: cannot end what the command left running: " + e.getMessage());
        }
    }

    /** Following failed for a reason of its own (not a stop): the process ends with the attempt. */
    private void stopFollowing(ProcessHandle process, ProcessGroup group, Thread stdout, Thread stderr) {
        stdout.interrupt();
        stderr.interrupt();
        if (process != null) {
            terminate(process, group);
        }
    }

    /**
     * SIGTERM to the process, its descendants and its process group, then SIGKILL to whatever
     * outlives the grace period: the group also holds the processes whose parent exited, the
     * descendants those that left the group. Each process gets one SIGTERM: the descendants in the
     * group get theirs from the group's (a second one ran a TERM handler twice, or cut it short).
     */
    private void terminate(ProcessHandle process, ProcessGroup group) {
        // The stop that brought us here may have left this thread's interrupt set: cleared, so that
        // the group's SIGTERM is sent and its grace given; a later interrupt (a close that can wait
        // no longer) still cuts the grace short, and the stop's is restored at the end.
        boolean stopInterrupt = Thread.interrupted();
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process);
        tree.stream().filter(member -> group == null || !group.holds(member)).forEach(ProcessHandle::destroy);
        try {
            if (group != null) {
                group.end(grace); // SIGTERM to the group, SIGKILL after the grace if any is left
            }
            process.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.io.UncheckedIOException e) {
            // no shell to signal the group with: the tree below is all that can be ended
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (group != null) {
                group.killAtOnce(); // no grace left (a shutdown's close): the group goes with the tree
            }
        } catch (ExecutionException | TimeoutException e) {
            // still alive after the grace period (or cannot tell): kill below
        }
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        if (stopInterrupt) {
            Thread.currentThread().interrupt();
        }
    }
}
