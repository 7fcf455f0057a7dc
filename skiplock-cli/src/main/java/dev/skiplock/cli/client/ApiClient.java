package dev.skiplock.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.cli.CliJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * A small client of the HTTP API for the CLI. Maps answers to exit codes: 4xx → 2 (bad input, with
 * the server's message), unreachable or 5xx → 3, and so does an answer that is not the API's JSON
 * (a proxy's error page, another service on the port): 3 when it is not an error of the request.
 */
public final class ApiClient {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String token;

    public ApiClient(String base, String token) {
        if (!base.startsWith("http://") && !base.startsWith("https://")) {
            throw new IllegalArgumentException("--server: expected http://host:port, got '" + base + "'");
        }
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.token = token == null ? null : token.strip(); // a token file's CRLF: $(cat …) keeps the CR
        if (this.token != null && !this.token.chars().allMatch(c -> c > ' ' && c < 0x7f)) {
            // not echoed: the message would put the token in a log
            throw new IllegalArgumentException("--token: holds a character an HTTP header cannot carry"
                    + " (only printable ASCII without spaces)");
        }
    }

    public JsonNode get(String path) {
        return send("GET", path, null);
    }

    public JsonNode post(String path, JsonNode body) {
        return send("POST", path, body);
    }

    public JsonNode delete(String path) {
        return send("DELETE", path, null);
    }

    /** Reads an NDJSON stream line by line until {@code onLine} returns true (or the stream ends). */
    public void stream(String path, Predicate<JsonNode> onLine) {
        HttpResponse<InputStream> response = exchange(request("GET", path, null), HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            if (response.statusCode() >= 300) {
                fail(response.statusCode(), errorBody(lines.lines().reduce("", String::concat)));
            }
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode json = answer(response.statusCode(), line);
                if (json.path("error").isObject()) {
                    // the server failed after it sent its status (a database failure at a later page):
                    // its error comes as the stream's last line
                    fail(json.path("error").path("code").asText().equals("unavailable") ? 503 : 500, json);
                }
                if (onLine.test(json)) {
                    return;
                }
            }
        } catch (IOException e) {
            throw new CliFailure(3, "lost the connection to " + base + ": " + e.getMessage());
        }
    }

    /**
     * Opens a stream of server-sent events ({@code text/event-stream}) at {@code path}, after event
     * {@code lastEventId} when it is positive; an error answer fails as {@link #get} does. Its
     * headers must come within {@code timeout}: a server that accepts the connection and then says
     * nothing is unreachable (3).
     */
    HttpResponse<InputStream> openEvents(String path, long lastEventId, Duration timeout) {
        HttpRequest.Builder builder = requestBuilder("GET", path, null).timeout(timeout)
                .header("Accept", "text/event-stream");
        if (lastEventId > 0) {
            builder.header("Last-Event-ID", Long.toString(lastEventId));
        }
        HttpResponse<InputStream> response = exchange(builder.build(), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() >= 300) {
            try (InputStream body = response.body()) {
                fail(response.statusCode(), errorBody(new String(body.readNBytes(1 << 20), StandardCharsets.UTF_8)));
            } catch (IOException e) {
                fail(response.statusCode(), null);
            }
        }
        if (!response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
            try {
                response.body().close();
            } catch (IOException e) {
                // failing anyway
            }
            throw new CliFailure(3, base + " answered HTTP " + response.statusCode()
                    + " with a body that is not an event stream (is it a Skiplock server?)");
        }
        return response;
    }

    /** The base URL, for messages. */
    String base() {
        return base;
    }

    private JsonNode send(String method, String path, JsonNode body) {
        HttpResponse<String> response = exchange(request(method, path, body), HttpResponse.BodyHandlers.ofString());
        String text = response.body();
        if (response.statusCode() >= 300) {
            fail(response.statusCode(), errorBody(text));
        }
        return text == null || text.isBlank() ? null : answer(response.statusCode(), text);
    }

    /** A successful answer's JSON; anything else did not come from Skiplock's API. */
    JsonNode answer(int status, String text) {
        try {
            return CliJson.read(text);
        } catch (IllegalStateException e) {
            throw new CliFailure(3, base + " answered HTTP " + status + " with a body that is not JSON"
                    + " (is it a Skiplock server?): " + e.getMessage());
        }
    }

    /** An error answer's JSON, or null when it has none (its status alone then says what it was). */
    private static JsonNode errorBody(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return CliJson.read(text);
        } catch (IllegalStateException e) {
            return null;
        }
    }

    private HttpRequest request(String method, String path, JsonNode body) {
        return requestBuilder(method, path, body).build();
    }

    /** A request of the API with its body and the caller's token; an hour to answer unless changed. */
    private HttpRequest.Builder requestBuilder(String method, String path, JsonNode body) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofMinutes(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body.toString()));
        if (body != null) {
            builder.header("Content-Type", "application/json");
        }
        if (token != null && !token.isBlank()) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }

    private <T> HttpResponse<T> exchange(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        try {
            return http.send(request, handler);
        } catch (IOException e) {
            throw new CliFailure(3, "cannot reach " + base + ": " + (e.getMessage() == null ? e : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(3, "interrupted");
        }
    }

    void fail(int status, JsonNode body) {
        String message = body != null && body.path("error").has("message") ? body.path("error").path("message").asText()
                : base + " answered HTTP " + status;
        throw new CliFailure(status >= 500 ? 3 : 2, message);
    }
}
