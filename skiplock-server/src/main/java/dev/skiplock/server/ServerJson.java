package dev.skiplock.server;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The server's own Jackson mapper, configured as the library's payload mapper is (ISO-8601 times,
 * unknown properties ignored when reading into types), so the API writes {@code Job} and
 * {@code WorkerInfo} with the field names and shapes of API.md without reaching into the library's
 * internals.
 */
final class ServerJson {
    static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private ServerJson() {
    }

    static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }
}
