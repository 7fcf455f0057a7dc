package dev.skiplock.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.internal.Json;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A plain HTTP client for the service tests: status code plus parsed JSON (or raw lines for streams). */
final class Http {
    /** {@code json} is the parsed body when it is a JSON object, else null; {@code contentType} as sent, or null. */
    record Answer(int status, JsonNode json, String text, String contentType) {
    }

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    Http(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    Answer get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    Answer post(String path, String body) {
        return post(path, body, Map.of());
    }

    Answer post(String path, String body, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(request::header);
        return send(request);
    }

    Answer delete(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).DELETE());
    }

    /**
     * Any method, with headers; a body of null sends none. A stream's answer comes once the server
     * closes it (after the job's terminal event), its whole text in {@link Answer#text()}.
     */
    Answer call(String method, String path, String body, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(request::header);
        return send(request);
    }

    /** A GET answered as the JDK's client gives it: every header, the body as text. */
    HttpResponse<String> getWithHeaders(String path) {
        return getWithHeaders(path, Map.of());
    }

    /** {@code GET path} sending {@code headers}; the whole answer with its headers. */
    HttpResponse<String> getWithHeaders(String path, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60)).GET();
        headers.forEach(request::header);
        try {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads a stream to its end (the server closes it after the terminal event); returns non-blank lines. */
    List<String> streamLines(String path, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60)).GET();
        headers.forEach(request::header);
        try {
            HttpResponse<InputStream> response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            List<String> lines = new ArrayList<>();
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    if (!line.isBlank()) {
                        lines.add(line);
                    }
                }
            }
            return lines;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code GET target} written by hand on a socket, for a target the JDK's client refuses to send
     * ({@code ?queue=%zz}); the body's JSON object, whatever the transfer encoding around it.
     */
    Answer rawGet(String target) {
        URI uri = URI.create(base);
        try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(60_000);
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: " + uri.getHost() + "\r\n"
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int status = Integer.parseInt(answer.substring(answer.indexOf(' ') + 1, answer.indexOf(' ') + 4));
            String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
            JsonNode json = body.contains("{") ? Json.read(body.substring(body.indexOf('{'), body.lastIndexOf('}') + 1)) : null;
            return new Answer(status, json, body, null);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = client.send(request.timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofString());
            String body = response.body();
            JsonNode json = null;
            if (body != null && !body.isBlank() && body.strip().startsWith("{")) {
                json = Json.read(body);
            }
            return new Answer(response.statusCode(), json, body,
                    response.headers().firstValue("Content-Type").orElse(null));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
