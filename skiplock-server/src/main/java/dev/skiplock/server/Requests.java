package dev.skiplock.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.util.UUID;

/** Reading what a request carries: a bounded JSON body, ids from the path. */
final class Requests {
    private Requests() {
    }

    static JsonNode body(Context ctx, long maxBytes) {
        byte[] bytes;
        try (InputStream in = ctx.req().getInputStream()) {
            bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
        } catch (IOException e) {
            throw ApiError.invalid("body", "could not be read: " + e.getMessage());
        }
        if (bytes.length > maxBytes) {
            throw new ApiError(413, "payload_too_large", "body: larger than " + maxBytes + " bytes", "body");
        }
        if (bytes.length == 0) {
            throw ApiError.invalid("body", "is empty; expected a JSON object");
        }
        try {
            return ServerJson.MAPPER.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw ApiError.invalid("body", "is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw ApiError.invalid("body", "could not be read: " + e.getMessage());
        }
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
