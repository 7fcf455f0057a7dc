package dev.skiplock.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }
}
