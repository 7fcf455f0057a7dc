package example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RemindersTest {
    @Test
    void aReminderIsEnqueuedAndWorkedOff(@TempDir Path dir) throws Exception {
        Job done = Reminders.remind("jdbc:sqlite:" + dir.resolve("reminders.db"), "ada", "water the plants");

        assertEquals(JobStatus.SUCCEEDED, done.status());
        assertEquals("reminded ada to water the plants", done.result().get("sent").asText());
    }

    @Test
    void theLibraryTellsItsVersionInCodeAndInItsJarsManifest() {
        assertEquals(Skiplock.version(), Skiplock.class.getPackage().getImplementationVersion());
    }
}
