package dev.skiplock.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** The one Jackson mapper for payloads (args, metadata, results) and the JSON batches sent to SQL. */
public final class Json {
    /**
     * Unknown properties are ignored when reading args, so adding a field to an args record does not
     * break workers still running the previous release.
     */
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private Json() {
    }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("args: cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** JSON text of a payload; {@code null} becomes {@code {}}. */
    public static String writeObjectOrEmpty(Object value) {
        return value == null ? "{}" : write(value);
    }

    public static JsonNode read(String text) {
        if (text == null) {
            return null;
        }
        if (text.equals("{}")) {
            return object(); // most metadata (and many args): skips a parser on the claim path
        }
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored JSON is not valid: " + e.getOriginalMessage(), e);
        }
    }

    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }
}
