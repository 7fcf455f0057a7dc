package example;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Seed "Runs & Builds": one build of a commit, then several runs (a test suite per platform) that
 * wait for it and run against the artifact it produced. A failed build fails its runs, naming it,
 * and none of them starts.
 */
public final class BuildThenRun {
    public record Build(String commit, boolean breaks) {
    }

    public record Run(String platform) {
    }

    private BuildThenRun() {
    }

    /** Builds {@code commit}, runs it on each platform; returns the runs as they ended. */
    public static List<Job> buildAndRun(String url, Build build, List<String> platforms) throws InterruptedException {
        try (Skiplock skiplock = Skiplock.builder()
                .url(url)
                .config(SkiplockConfig.builder().queue("builds", 1).queue("runs", 4).build())
                .handler("build", Build.class, context -> {
                    if (context.args().breaks()) {
                        return JobOutcome.fail("compile error in " + context.args().commit());
                    }
                    String artifact = context.step("compile", String.class, () -> "app-" + context.args().commit() + ".jar");
                    context.log("stdout", "built " + artifact);
                    return JobOutcome.complete(Map.of("artifact", artifact));
                })
                .handler("run", Run.class, context -> {
                    JsonNode built = context.parentResults().values().iterator().next(); // the build it waited for
                    String report = "tested " + built.get("artifact").asText() + " on " + context.args().platform();
                    context.log("stdout", report);
                    return JobOutcome.complete(Map.of("report", report));
                })
                .build()) {
            skiplock.start();
            Job buildJob = skiplock.enqueue(JobRequest.of("build", build).withQueue("builds").withMaxAttempts(1));
            List<Job> runs = new ArrayList<>();
            for (String platform : platforms) {
                runs.add(skiplock.enqueue(JobRequest.of("run", new Run(platform)).withQueue("runs")
                        .withDependsOn(List.of(buildJob.id()))));
            }
            List<Job> ended = new ArrayList<>();
            for (Job run : runs) {
                ended.add(skiplock.awaitTerminal(run.id(), Duration.ofMinutes(1)));
            }
            return ended;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        for (Job run : buildAndRun("jdbc:sqlite:./builds.db", new Build("4f2a9c1", false), List.of("linux", "macos"))) {
            System.out.println(run.status().wireName() + ": " + run.result());
        }
    }
}
