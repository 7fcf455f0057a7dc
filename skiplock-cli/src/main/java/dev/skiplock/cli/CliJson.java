package dev.skiplock.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The command line's own Jackson mapper: it reads the server's answers and the JSON users type, and
 * writes request bodies and benchmark lines, all plain JSON trees, so it needs no module beyond
 * Jackson's defaults.
 */
public final class CliJson {
    public static final ObjectMapper MAPPER = new ObjectMapper();

    private CliJson() {
    }

    /** Parses {@code text}; a server answer that is not JSON is reported as such. */
    public static JsonNode read(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Parses JSON the user typed for {@code field}: one value, nothing after it; empty text is JSON
     * null. Bad input is an {@link IllegalArgumentException} naming the field (exit 2).
     */
    public static JsonNode parse(String field, String text) {
        try {
            JsonNode value = MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(text);
            return value == null || value.isMissingNode() ? NullNode.getInstance() : value;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(field + ": not valid JSON: " + e.getOriginalMessage());
        }
    }

    /**
     * {@code node} as indented JSON for a person to read: DEL and the C1 controls written as JSON's
     * escapes (a backslash, {@code u} and four hex digits) too, as Jackson writes the C0 ones. The JSON reads the same;
     * raw, a job's data in it (an error, a result) could start an escape sequence in the terminal
     * that shows it (C1's CSI is 0x9b), as {@link Terminal#shown} explains.
     */
    public static String pretty(JsonNode node) throws JsonProcessingException {
        return PRETTY.writeValueAsString(node);
    }

    private static final ObjectWriter PRETTY = MAPPER.writerWithDefaultPrettyPrinter()
            .with(new NoControlEscapes());

    /** The escapes of {@link #pretty}: JSON's own, and DEL and C1. */
    private static final class NoControlEscapes extends CharacterEscapes {
        private final int[] ascii = standardAsciiEscapesForJSON();

        NoControlEscapes() {
            ascii[0x7f] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return ch >= 0x80 && ch <= 0x9f
                    ? new SerializedString(String.format("\\u%04X", ch)) : null;
        }
    }

    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }
}
