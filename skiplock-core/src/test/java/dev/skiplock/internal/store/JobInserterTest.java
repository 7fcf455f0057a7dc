package dev.skiplock.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.Job;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import dev.skiplock.internal.Uuid7;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The measure of a job that bounds a group commit's statement ({@link JobInserter#MAX_GROUP_DOCUMENTS}). */
class JobInserterTest {

    @Test
    void aJobsDocumentsLengthIsTheLengthOfTheTextTheStatementCarries() {
        ObjectNode args = Json.MAPPER.createObjectNode().put("text", "quote \" backslash \\ tab \t nul \u0000 é 😀")
                .put("n", 12.5);
        args.putArray("list").add(1).add("two").addNull();
        ObjectNode metadata = Json.MAPPER.createObjectNode().put("trace", "abc");
        Job job = job(args, metadata);

        assertThat(JobInserter.documentsLength(job))
                .isEqualTo(JobColumns.documentText(args).length() + JobColumns.documentText(metadata).length());
        assertThat(JobInserter.documentsLength(job(Json.MAPPER.createObjectNode(), Json.MAPPER.createObjectNode())))
                .isEqualTo(4); // {} and {}
    }

    private static Job job(ObjectNode args, ObjectNode metadata) {
        return Job.builder().id(Uuid7.next()).tenant(Skiplock.DEFAULT_TENANT).queue("q").kind("work").args(args)
                .metadata(metadata).status(JobStatus.QUEUED).maxAttempts(3).dependsOn(List.of()).build();
    }
}
