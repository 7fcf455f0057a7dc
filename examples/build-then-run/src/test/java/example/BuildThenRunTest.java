package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuildThenRunTest {
    @Test
    void eachRunTestsTheArtifactOfTheBuildItWaitedFor(@TempDir Path dir) throws Exception {
        List<Job> runs = BuildThenRun.buildAndRun("jdbc:sqlite:" + dir.resolve("builds.db"),
                new BuildThenRun.Build("4f2a9c1", false), List.of("linux", "macos"));

        assertEquals(List.of(JobStatus.SUCCEEDED, JobStatus.SUCCEEDED), runs.stream().map(Job::status).toList());
        assertEquals("tested app-4f2a9c1.jar on linux", runs.get(0).result().get("report").asText());
        assertEquals("tested app-4f2a9c1.jar on macos", runs.get(1).result().get("report").asText());
    }

    @Test
    void aBrokenBuildFailsItsRunsWithoutStartingThem(@TempDir Path dir) throws Exception {
        List<Job> runs = BuildThenRun.buildAndRun("jdbc:sqlite:" + dir.resolve("builds.db"),
                new BuildThenRun.Build("dead", true), List.of("linux"));

        assertEquals(JobStatus.FAILED, runs.getFirst().status());
        assertEquals(0, runs.getFirst().attempt());
        assertTrue(runs.getFirst().lastError().contains("dependency"), runs.getFirst().lastError());
    }
}
