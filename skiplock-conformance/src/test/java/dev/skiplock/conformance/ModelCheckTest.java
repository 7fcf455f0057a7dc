package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The protocol's model ({@code model/*.pml}, README "Model checking"), checked by spin: every
 * invariant and the liveness property hold with the fixes; with each fault restored by its
 * switch, spin finds a counterexample; and every SQL statement the model names exists in both
 * dialects, so that model and code cannot drift apart unnoticed. Needs spin and gcc on the PATH
 * (never skipped: the test fails and says how to install them).
 */
final class ModelCheckTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path MODEL = ROOT.resolve("model");
    private static final Pattern NAME = Pattern.compile("-- name: (\\w+)");
    private static final Pattern ERRORS = Pattern.compile("errors: (\\d+)");
    private static final long STEP_TIMEOUT_SECONDS = 300;
    private static volatile boolean toolsFound;

    /** One spin run: a model, its {@code -D} switches, and the ltl property checked (null: safety). */
    record Check(String title, String model, List<String> switches, String ltl) {
        @Override
        public String toString() {
            return title;
        }
    }

    /** A fault restored by its switch, and what spin's report of the counterexample contains. */
    record Mutation(Check check, String expected) {
        @Override
        public String toString() {
            return check.title();
        }
    }

    private static Check safety(String title, String model, String... switches) {
        return new Check(title, model, List.of(switches), null);
    }

    private static Check liveness(String title, String model, String ltl, String... switches) {
        return new Check(title, model, List.of(switches), ltl);
    }

    static Stream<Check> properties() {
        return Stream.of(
                safety("lease protocol, in-process job: invariants", "skiplock.pml"),
                liveness("lease protocol, in-process job: every job ends", "skiplock.pml", "done"),
                safety("lease protocol, command job: invariants", "skiplock.pml", "-DCMD"),
                liveness("lease protocol, command job: every job ends", "skiplock.pml", "done", "-DCMD"),
                safety("dependencies: none waiting once its parents ended", "dependencies.pml"),
                liveness("dependencies: every job ends", "dependencies.pml", "done"),
                safety("cron: each slot enqueued at most once", "cron.pml"),
                safety("retention: deletes only terminal jobs", "retention.pml"),
                liveness("orphans: rescued while traffic flows", "orphans.pml", "rescued"));
    }

    static Stream<Mutation> mutations() {
        return Stream.of(
                new Mutation(safety("fault 2: dependency trigger without the child lock", "dependencies.pml",
                        "-DMUT_DEP_NO_LOCK"), "assertion violated"),
                new Mutation(liveness("fault 6: orphans looked for only at a poll timeout", "orphans.pml", "rescued",
                        "-DMUT_ORPHAN_WAKE_ONLY"), "acceptance cycle"),
                new Mutation(safety("fault 7: retention deletes the ids it picked without re-checking",
                        "retention.pml", "-DMUT_PRUNE_NO_RECHECK"), "assertion violated"),
                new Mutation(safety("fault 9: fenced on (locked_by, attempt)", "skiplock.pml",
                        "-DMUT_FENCE_ATTEMPT"), "assertion violated (ltok==h_tok"),
                new Mutation(safety("fault 8: a claim whose reply was lost is not given back", "skiplock.pml",
                        "-DMUT_NO_UNCLAIM"), "(ran+excused)"),
                new Mutation(safety("fault 3: cron slots unique among live jobs only", "cron.pml",
                        "-DMUT_CRON_LIVE_ONLY"), "assertion violated (enqueued[s]<=1)"),
                new Mutation(safety("a pruned marker is its slot's only record", "cron.pml",
                        "-DMUT_CRON_PRUNE_FORGETS"), "assertion violated (enqueued[s]<=1)"),
                new Mutation(safety("a claim checks the pruned slots before its insert", "cron.pml",
                        "-DMUT_CRON_CHECK_FIRST"), "assertion violated (enqueued[s]<=1)"),
                new Mutation(safety("fault 5: a command job adopted on another host", "skiplock.pml",
                        "-DCMD", "-DMUT_CMD_ANY_HOST"), "crashed[host]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("properties")
    void spinFindsNoCounterexampleWithTheFixes(Check check, @TempDir Path dir) throws Exception {
        String report = verify(check, dir);
        int errors = errors(report);
        assertThat(errors).as("%s%n%s%n%s", check, report, errors == 0 ? "" : trail(check, dir)).isZero();
        assertThat(report).as(report).doesNotContain("max search depth too small");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mutations")
    void spinFindsACounterexampleWithEachFaultRestored(Mutation mutation, @TempDir Path dir) throws Exception {
        String report = verify(mutation.check(), dir);
        assertThat(errors(report)).as("%s passed: the model no longer tells the fault apart%n%s", mutation, report)
                .isGreaterThanOrEqualTo(1);
        assertThat(report).contains(mutation.expected());
    }

    @Test
    void everyStatementTheModelNamesIsDefinedInBothDialects() throws IOException {
        Set<String> named = names(MODEL, ".pml");
        assertThat(named).as("statements named in %s", MODEL).contains("claim_jobs", "complete_jobs");
        Set<String> postgres = names(sqlDirectory("postgres"), ".sql");
        Set<String> sqlite = names(sqlDirectory("sqlite"), ".sql");
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(missing(named, postgres))
                    .as("statements the model names that PostgreSQL's sql/*.sql does not define").isEmpty();
            softly.assertThat(missing(named, sqlite))
                    .as("statements the model names that SQLite's sql/*.sql does not define").isEmpty();
        });
    }

    private static Path sqlDirectory(String dialect) {
        return ROOT.resolve("skiplock-" + dialect + "/src/main/resources/dev/skiplock/" + dialect + "/sql");
    }

    private static Set<String> missing(Set<String> named, Set<String> defined) {
        Set<String> missing = new TreeSet<>(named);
        missing.removeAll(defined);
        return missing;
    }

    /** Every {@code -- name: X} in the files of {@code directory} ending with {@code suffix}. */
    private static Set<String> names(Path directory, String suffix) throws IOException {
        assertThat(directory).isDirectory();
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.filter(path -> path.toString().endsWith(suffix)).toList()) {
                Matcher matcher = NAME.matcher(Files.readString(file));
                while (matcher.find()) {
                    names.add(matcher.group(1));
                }
            }
        }
        return names;
    }

    /** Generates the verifier for {@code check} in {@code dir}, compiles and runs it; returns its report. */
    private static String verify(Check check, Path dir) throws IOException, InterruptedException {
        requireTools();
        copyModel(dir);
        boolean liveness = check.ltl() != null;
        List<String> spin = new ArrayList<>(List.of("spin", "-a"));
        spin.addAll(check.switches());
        if (liveness) {
            spin.add("-DLIVENESS");
        }
        spin.add(check.model());
        run(dir, spin, true);
        // Safety runs drop the ltl claim (-DNOCLAIM); liveness runs check it under weak fairness
        // (-a -f), whose bookkeeping needs room for every process (-DNFAIR).
        List<String> gcc = new ArrayList<>(List.of("gcc", "-w", "-O2", "-DMEMLIM=2048"));
        gcc.addAll(liveness ? List.of("-DNFAIR=3") : List.of("-DSAFETY", "-DNOCLAIM"));
        gcc.addAll(List.of("-o", "pan", "pan.c"));
        run(dir, gcc, true);
        List<String> pan = new ArrayList<>(List.of("./pan", "-m20000"));
        if (liveness) {
            pan.addAll(List.of("-a", "-f", "-N", check.ltl()));
        }
        return run(dir, pan, false);
    }

    /** The counterexample spin found, replayed step by step (its last lines). */
    private static String trail(Check check, Path dir) throws IOException, InterruptedException {
        List<String> replay = new ArrayList<>(List.of("spin", "-t", "-p"));
        replay.addAll(check.switches());
        if (check.ltl() != null) {
            replay.add("-DLIVENESS");
        }
        replay.add(check.model());
        List<String> lines = run(dir, replay, false).lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 200), lines.size()));
    }

    private static int errors(String report) {
        Matcher matcher = ERRORS.matcher(report);
        if (!matcher.find()) {
            fail("no \"errors:\" line in spin's report:%n%s", report);
        }
        return Integer.parseInt(matcher.group(1));
    }

    private static void copyModel(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(MODEL)) {
            for (Path file : files.filter(path -> path.toString().endsWith(".pml")).toList()) {
                Files.copy(file, dir.resolve(file.getFileName()));
            }
        }
    }

    private static void requireTools() throws InterruptedException {
        if (toolsFound) {
            return;
        }
        for (String tool : List.of("spin", "gcc")) {
            try {
                Process process = new ProcessBuilder(tool, tool.equals("spin") ? "-V" : "--version")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                    fail("%s does not run; the model check needs spin and gcc: apt-get install spin gcc", tool);
                }
            } catch (IOException notFound) {
                fail("%s is not installed; the model check needs spin and gcc: apt-get install spin gcc", tool);
            }
        }
        toolsFound = true;
    }

    /** Runs {@code command} in {@code dir}; returns its output (stdout and stderr). */
    private static String run(Path dir, List<String> command, boolean mustSucceed)
            throws IOException, InterruptedException {
        Path output = Files.createTempFile(dir, "out", ".txt");
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile()).start();
        if (!process.waitFor(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            fail("%s took over %d s (bound the model tighter):%n%s", command, STEP_TIMEOUT_SECONDS,
                    Files.readString(output));
        }
        String text = Files.readString(output);
        if (mustSucceed && process.exitValue() != 0) {
            fail("%s exited with %d:%n%s", command, process.exitValue(), text);
        }
        return text;
    }
}
