package dev.skiplock.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.NullNode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.util.UUID;

/** Reading what a request carries: a bounded JSON body (an object, or any value), ids from the path. */
final class Requests {
    /** Reads one JSON value and refuses anything after it ({@code {"kind":"x"}}} is not a body). */
    private static final ObjectReader WHOLE_VALUE = ServerJson.MAPPER.reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Requests() {
    }

    /**
     * Refuses a query string whose percent-encoding is malformed ({@code ?queue=%zz}), naming the
     * parameter: decoded later by the framework, it failed naming the JDK's decoder as the field.
     */
    static void wellFormedQuery(Context ctx) {
        String query = ctx.queryString();
        if (query == null) {
            return;
        }
        for (String pair : query.split("&")) {
            int equals = pair.indexOf('=');
            String name = equals < 0 ? pair : pair.substring(0, equals);
            String decodedName;
            try {
                decodedName = java.net.URLDecoder.decode(name, java.nio.charset.StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw ApiError.invalid("query", "a parameter name has malformed percent-encoding");
            }
            try {
                java.net.URLDecoder.decode(pair.substring(equals + 1), java.nio.charset.StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw ApiError.invalid(decodedName, "malformed percent-encoding (a '%' not followed by two hex digits)");
            }
        }
    }

    /** The body as one JSON value; trailing content after it is refused, as an empty body is. */
    static JsonNode body(Context ctx, long maxBytes) {
        byte[] bytes = bytes(ctx, maxBytes);
        if (bytes.length == 0) {
            throw ApiError.invalid("body", "is empty; expected a JSON object");
        }
        return parse(WHOLE_VALUE, bytes, "body");
    }

    /**
     * The whole body as one JSON value of any kind, named {@code field} in errors; an empty (or
     * blank) body is JSON null. Trailing content after the value is refused.
     */
    static JsonNode value(Context ctx, long maxBytes, String field) {
        JsonNode value = parse(WHOLE_VALUE, bytes(ctx, maxBytes), field);
        return value == null || value.isMissingNode() ? NullNode.getInstance() : value;
    }

    private static JsonNode parse(ObjectReader reader, byte[] bytes, String field) {
        try {
            return reader.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw ApiError.invalid(field, "is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw ApiError.invalid(field, "could not be read: " + e.getMessage());
        }
    }

    /** The body's bytes; over {@code maxBytes} is a 413, as for every route. */
    private static byte[] bytes(Context ctx, long maxBytes) {
        byte[] bytes;
        try (InputStream in = ctx.req().getInputStream()) {
            bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
        } catch (IOException e) {
            throw ApiError.invalid("body", "could not be read: " + e.getMessage());
        }
        if (bytes.length > maxBytes) {
            throw new ApiError(413, "payload_too_large", "body: larger than " + maxBytes + " bytes", "body");
        }
        return bytes;
    }

    static UUID id(Context ctx) {
        String raw = ctx.pathParam("id");
        try {
            UUID id = UUID.fromString(raw);
            if (!id.toString().equalsIgnoreCase(raw)) {
                throw new IllegalArgumentException(raw);
            }
            return id;
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid("id", "not a job id: '" + (raw.length() > 40 ? raw.substring(0, 40) : raw) + "'");
        }
    }
}
