package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.SkiplockConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * README "Durable workflows": its example is the code between the markers below, compiled and run
 * here on both databases, and the README shows exactly that code (checked).
 */
abstract class WorkflowExampleContract extends ContractBase {

    /** Calls of each stage of the pipeline below. */
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    private String called(String stage, String value) {
        calls.computeIfAbsent(stage, name -> new AtomicInteger()).incrementAndGet();
        return value;
    }

    private final class Git {
        String checkout(String commit) {
            return called("checkout", "src@" + commit);
        }
    }

    private final class Compiler {
        String compile(String sources) {
            return called("compile", "app-" + sources.substring("src@".length()) + ".jar");
        }
    }

    private final class Tests {
        String run(String artifact) {
            return called("test", "42 passed");
        }
    }

    private final class Cluster {
        String stage(String artifact, String environment) {
            return called("stage", artifact + " staged in " + environment);
        }

        String release(String artifact, String approvedBy) {
            return called("release", artifact + " released, approved by " + approvedBy);
        }
    }

    private final Git git = new Git();
    private final Compiler compiler = new Compiler();
    private final Tests tests = new Tests();
    private final Cluster cluster = new Cluster();

    @Test
    void theReadmesWorkflowRunsEachStageOnceAndReleasesAfterTheApproval() throws Exception {
        String url = database.url();
        // README:durable-workflows:begin
        record Build(String commit) {}
        record Deploy(String environment) {}

        Skiplock skiplock = Skiplock.builder().url(url)
                .config(SkiplockConfig.builder().queue("ci", 4).build())
                .handler("build", Build.class, context -> {
                    String sources = context.step("checkout", String.class, () -> git.checkout(context.args().commit()));
                    String artifact = context.step("compile", String.class, () -> compiler.compile(sources));
                    context.step("test", () -> tests.run(artifact));   // after a crash: none of the three again
                    return JobOutcome.complete(Map.of("artifact", artifact));
                })
                .handler("deploy", Deploy.class, context -> {
                    JsonNode build = context.parentResults().values().iterator().next();   // the build it waited for
                    String artifact = build.get("artifact").asText();
                    context.step("stage", () -> cluster.stage(artifact, context.args().environment()));
                    JsonNode approval = context.awaitSignal("approval", Duration.ofDays(1))  // no thread, no lease
                            .orElseThrow(() -> new IllegalStateException("nobody approved within a day"));
                    context.sleep("canary", Duration.ofSeconds(1));                         // durable as well
                    return JobOutcome.complete(context.step("release",
                            () -> cluster.release(artifact, approval.get("by").asText())));
                })
                .build().start();

        Job build = skiplock.enqueue(JobRequest.of("build", new Build("4f2a9c1")).withQueue("ci"));
        Job deploy = skiplock.enqueue(JobRequest.of("deploy", new Deploy("production")).withQueue("ci")
                .withDependsOn(List.of(build.id())));
        // A person approves: POST /api/v1/jobs/{id}/signals/approval, `skiplock signal ID approval '{"by":"ada"}'`, or
        skiplock.signal(deploy.id(), "approval", Map.of("by", "ada"));
        Job released = skiplock.awaitTerminal(deploy.id(), Duration.ofMinutes(5));
        // README:durable-workflows:end
        track(skiplock);

        assertThat(released.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(released.result().asText()).isEqualTo("app-4f2a9c1.jar released, approved by ada");
        assertThat(calls.keySet()).containsExactlyInAnyOrder("checkout", "compile", "test", "stage", "release");
        assertThat(calls.values()).allSatisfy(count -> assertThat(count).hasValue(1));
    }

    @Test
    void theReadmeShowsTheExampleThatRunsHere() throws Exception {
        ReadmeExamples.assertReadmeShows(WorkflowExampleContract.class, "durable-workflows", "## Durable workflows");
    }
}
