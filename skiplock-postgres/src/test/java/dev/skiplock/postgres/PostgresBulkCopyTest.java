package dev.skiplock.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PostgresBulkCopyTest {

    @Test
    void encodesRowsAsCopyTextEscapingWhatWouldSplitAColumnOrALine() {
        UUID id = UUID.fromString("01a2167f-91b7-7000-b1be-280ac08b6f03");
        String text = PostgresBulkCopy.encode(List.of(
                new Object[] {id, "a\tb\nc\rd\\e", null, 7, Instant.parse("2026-11-26T06:00:00.123456Z")},
                new Object[] {"\\N", "ünï ✓"}));

        assertThat(text).isEqualTo(id + "\ta\\tb\\nc\\rd\\\\e\t\\N\t7\t2026-11-26T06:00:00.123456Z\n"
                + "\\\\N\tünï ✓\n");
    }

    @Test
    void sendsWholeRowsInChunksThatTogetherAreTheText() throws Exception {
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            rows.add(new Object[] {"job-" + i, "tab\there", i % 3 == 0 ? null : i});
        }
        List<String> chunks = new ArrayList<>();

        PostgresBulkCopy.encode(rows, 64, chunk -> chunks.add(chunk.toString()));

        assertThat(chunks).hasSizeGreaterThan(1).allSatisfy(chunk -> assertThat(chunk).endsWith("\n"));
        assertThat(chunks).allSatisfy(chunk -> assertThat(chunk.length()).isLessThan(64 + 32));
        assertThat(String.join("", chunks)).isEqualTo(PostgresBulkCopy.encode(rows));
        assertThat(PostgresBulkCopy.encode(rows)).startsWith("job-0\ttab\\there\t\\N\njob-1\t");
    }
}
