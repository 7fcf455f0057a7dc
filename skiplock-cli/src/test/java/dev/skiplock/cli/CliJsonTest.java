package dev.skiplock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * What {@code status ID} and the other JSON-printing commands write: a job's data with DEL or a C1
 * control (0x9b, the one-byte CSI, starts an escape sequence in many terminals) is written escaped,
 * and the JSON reads the same. Before, Jackson wrote them raw (second reader).
 */
class CliJsonTest {
    @Test
    void prettyJsonEscapesDelAndC1AndReadsTheSame() throws Exception {
        JsonNode job = CliJson.MAPPER.createObjectNode().put("lastError", "a\u009b2Jb\u007fc\u0085\u00a0é\u001b");

        String printed = CliJson.pretty(job);

        assertThat(printed).doesNotContain("\u009b", "\u007f", "\u0085", "\u001b")
                .contains("\\u009B", "\\u007F", "\\u0085", "\\u001B", "\u00a0é");
        assertThat(CliJson.read(printed)).isEqualTo(job);
    }
}
