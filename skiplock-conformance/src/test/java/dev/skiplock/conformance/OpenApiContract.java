package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Skiplock;
import dev.skiplock.conformance.OpenApiDocument.Operation;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import dev.skiplock.server.SkiplockServer.Route;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI description ({@code GET /api/v1/openapi.json}) against the running server: it parses,
 * it documents exactly the routes the server registers and those of API.md's endpoint table, and a
 * walk of every documented operation gets each documented status (bar {@link #NOT_WALKED}) in each
 * documented content type, every answer's status documented and its body valid against the schema.
 * What must be covered comes from the document: a route added without its description, or described
 * without an answer to match, fails here.
 */
abstract class OpenApiContract extends ContractBase {
    private static final Path API_MD = Path.of("..", "docs", "API.md").toAbsolutePath().normalize();
    private static final String ADMIN_TOKEN = "openapi-admin";
    private static final String TENANT_TOKEN = "openapi-tenant";
    /**
     * Documented, produced elsewhere: fallback mode's 429 and enqueues' 409 (AccessContract), 503 a
     * database down (Fault*). A status alone, or "METHOD path status" for one operation's.
     */
    private static final Set<String> NOT_WALKED = Set.of("429", "503", "POST /api/v1/jobs 409",
            "POST /api/v1/jobs/batch 409");
    private static final long MAX_BODY_BYTES = 64 * 1024;
    private static final String NO_CONTENT = "(no content)";

    private SkiplockServer server;
    private Skiplock skiplock;
    private Http http;
    private String served;
    private OpenApiDocument document;
    private final List<String> problems = new ArrayList<>();
    /** "METHOD template status content-type" of every answer matched to the document. */
    private final Set<String> covered = new TreeSet<>();

    @BeforeEach
    void startServer() throws Exception {
        skiplock = started(builder(config -> config.queue("default", 2))
                .handler("command", JsonNode.class, SkiplockServer.commandRunner()));
        Map<String, String> tokens = Map.of(sha256(ADMIN_TOKEN), "*", sha256(TENANT_TOKEN), "acme");
        server = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0, MAX_BODY_BYTES, true, Map.of(),
                tokens, null, List.of()));
        http = new Http(server.port());
        Http.Answer answer = http.call("GET", "/api/v1/openapi.json", null, bearer(ADMIN_TOKEN));
        assertThat(answer.status()).as(answer.text()).isEqualTo(200);
        served = answer.text();
        document = OpenApiDocument.read(served);
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Test
    void theServedDocumentIsOpenApi31AndParsesWithoutMessages() {
        SwaggerParseResult parsed = OpenApiDocument.parse(served);

        assertThat(parsed.getMessages()).as("swagger-parser's messages").isEmpty();
        assertThat(parsed.getOpenAPI().getOpenapi()).startsWith("3.1");
        assertThat(OpenApiDocument.routes(parsed)).as("the operations swagger-parser reads")
                .isEqualTo(document.routes());
    }

    @Test
    void theDocumentDescribesExactlyTheRoutesTheServerRegisters() {
        List<Route> registered = server.routes();

        assertThat(registered).as("routes the server registers").isNotEmpty().doesNotHaveDuplicates();
        assertThat(document.routes()).as("documented operations vs registered routes")
                .containsExactlyInAnyOrderElementsOf(registered);
    }

    @Test
    void apiMdEndpointTableNamesTheSameRoutesAsTheDocument() throws Exception {
        assertThat(apiMdRoutes()).as("API.md's endpoint table vs the document")
                .containsExactlyInAnyOrderElementsOf(document.routes());
    }

    @Test
    void everyOperationAnswersEachDocumentedStatusWithADocumentedBody() {
        Fixtures jobs = walkJobs();
        walkJobActions(jobs);
        walkEvents(jobs);
        walkAdmin();
        walkDerivedErrors(jobs);
        walkWithoutTokens(jobs);

        assertThat(problems).as("answers the document does not describe").isEmpty();
        assertThat(uncovered()).as("documented statuses no request produced").isEmpty();
    }

    /** Jobs the walk acts on: one that ran to success, one that stays queued (queue idle has no worker). */
    private record Fixtures(String done, String idle) {
    }

    private Fixtures walkJobs() {
        String done = expect("POST", "/api/v1/jobs", "{\"kind\": \"command\", \"args\": {\"argv\": [\"echo\", \"hi\"]}}",
                201).json().get("id").asText();
        await().atMost(WAIT).until(() -> expect("GET", "/api/v1/jobs/" + done + "?wait=20s", null, 200).json()
                .get("status").asText().equals("succeeded"));
        String unique = "{\"kind\": \"report\", \"queue\": \"idle\", \"uniqueKey\": \"daily\", \"metadata\": {\"a\": 1}}";
        String idle = expect("POST", "/api/v1/jobs", unique, 201).json().get("id").asText();
        assertThat(expect("POST", "/api/v1/jobs", unique, 200).json().get("id").asText()).isEqualTo(idle);
        expect("POST", "/api/v1/jobs", "{\"kind\": \"report\", \"surprise\": 1}", 400);
        // a later version of the trace context, which the server keeps as given (and answers with)
        expect("POST", "/api/v1/jobs", "{\"kind\": \"report\", \"queue\": \"idle\", \"traceparent\":"
                + " \"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later\"}", 201);
        expect("POST", "/api/v1/jobs/batch", "{\"jobs\": [{\"kind\": \"a\", \"queue\": \"idle\"}, "
                + "{\"kind\": \"b\", \"queue\": \"idle\", \"dependsOn\": [\"" + done + "\"]}]}", 201);
        expect("POST", "/api/v1/jobs/batch", "{\"jobs\": []}", 400);
        JsonNode page = expect("GET", "/api/v1/jobs?queue=idle&limit=1", null, 200).json();
        expect("GET", "/api/v1/jobs?queue=idle&cursor=" + page.get("nextCursor").asText(), null, 200);
        expect("GET", "/api/v1/jobs?limit=0", null, 400);
        expect("GET", "/api/v1/jobs/" + idle, null, 200);
        expect("GET", "/api/v1/jobs/" + idle + "?wait=100ms", null, 200);
        expect("GET", "/api/v1/jobs/" + idle + "?wait=soon", null, 400);
        return new Fixtures(done, idle);
    }

    private void walkJobActions(Fixtures jobs) {
        String other = submitIdle();
        expect("POST", "/api/v1/jobs/" + other + "/cancel", "", 202);
        expect("POST", "/api/v1/jobs/" + other + "/cancel", "", 409);
        expect("POST", "/api/v1/jobs/" + other + "/retry", "", 202);
        expect("POST", "/api/v1/jobs/" + jobs.idle() + "/retry", "", 409);
        expect("POST", "/api/v1/jobs/" + jobs.idle() + "/signals/approve", "{\"by\": \"ada\"}", 200);
        expect("POST", "/api/v1/jobs/" + jobs.idle() + "/signals/approve", "{\"by\": \"bob\"}", 409);
        expect("POST", "/api/v1/jobs/" + jobs.idle() + "/signals/ship", "{nope", 400);
        expect("DELETE", "/api/v1/jobs/" + other, null, 409);
        expect("DELETE", "/api/v1/jobs/" + other + "?force=maybe", null, 400);
        expect("DELETE", "/api/v1/jobs/" + other + "?force=true", null, 202);
        String cancelled = submitIdle();
        expect("POST", "/api/v1/jobs/" + cancelled + "/cancel", "", 202);
        expect("DELETE", "/api/v1/jobs/" + cancelled, null, 204);
    }

    private void walkEvents(Fixtures jobs) {
        String events = "/api/v1/jobs/" + jobs.done() + "/events";
        expect("GET", events, null, 200);
        expect("GET", events + "?follow=true", null, 200);
        expect("GET", events + "?follow=maybe", null, 400);
        expect("GET", events + "/download", null, 200);
        expect("GET", events + "/stream", null, 200);
        expect("GET", events + "/stream", null, Map.of("Last-Event-ID", "2"), 200);
        expect("GET", events + "/stream", null, Map.of("Last-Event-ID", "yesterday"), 400);
    }

    private void walkAdmin() {
        expect("POST", "/api/v1/queues/default/pause", "", 200);
        expect("POST", "/api/v1/queues/default/resume", "", 200);
        expect("GET", "/api/v1/queues", null, 200);
        expect("GET", "/api/v1/workers", null, 200);
        expect("GET", "/api/v1/whoami", null, 200);
        expect("GET", "/api/v1/whoami", null, bearer(TENANT_TOKEN), Map.of(), 200);
        expect("GET", "/api/v1/jobs?tenant=acme", null, 200);
        expect("GET", "/api/v1/openapi.json", null, 200);
        expect("GET", "/healthz", null, 200);
        expect("GET", "/readyz", null, 200);
        expect("GET", "/metrics", null, 200);
    }

    /**
     * Errors every operation gets the same way, derived from what it documents: 401 without a token
     * (and no 401 for an operation without security), 403 with a tenant's token, 400 for each bad
     * path parameter, 404 for a job that does not exist, 413 for a body over the limit.
     */
    private void walkDerivedErrors(Fixtures jobs) {
        Map<String, String> valid = Map.of("id", jobs.idle(), "queue", "idle", "name", "approve");
        for (Operation operation : document.operations()) {
            String method = operation.route().method();
            List<String> statuses = document.statuses(operation);
            String path = fill(operation, valid, null);
            if (document.secured(operation)) {
                expect(method, path, null, Map.of(), Map.of(), 401);
            } else {
                expect(method, path, null, Map.of(), Map.of(), Integer.parseInt(statuses.getFirst()));
            }
            if (statuses.contains("403") && "Forbidden".equals(document.responseComponent(operation, "403"))) {
                // an operation filtering by tenant refuses a tenant's token only when it names another
                String forbidden = hasQueryParameter(operation, "tenant") ? path + "?tenant=globex" : path;
                expect(method, forbidden, null, bearer(TENANT_TOKEN), Map.of(), 403);
            }
            if (statuses.contains("404") && path.contains(jobs.idle())) {
                expect(method, path.replace(jobs.idle(), UUID.randomUUID().toString()), null, 404);
            }
            for (JsonNode parameter : operation.parameters()) {
                if (parameter.get("in").asText().equals("path") && statuses.contains("400")) {
                    expect(method, fill(operation, valid, parameter.get("name").asText()), null, 400);
                }
            }
            if (document.hasRequestBody(operation) && statuses.contains("413")) {
                expect(method, path, "\"" + "a".repeat((int) MAX_BODY_BYTES) + "\"", 413);
            }
        }
    }

    /**
     * A server without tokens answers only its own machine's programs (LocalCallers): every API
     * operation and {@code /metrics} refuses a call another origin's page sent, naming {@code Origin},
     * and documents that 403 (most did not).
     */
    private void walkWithoutTokens(Fixtures jobs) {
        Map<String, String> valid = Map.of("id", jobs.idle(), "queue", "idle", "name", "approve");
        Http tokened = http;
        try (SkiplockServer local = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0, MAX_BODY_BYTES,
                true, Map.of(), Map.of(), null, List.of()))) {
            http = new Http(local.port());
            for (Operation operation : document.operations()) {
                String path = operation.route().path();
                if (path.startsWith("/api/v1/") || path.equals("/metrics")) {
                    Http.Answer refused = expect(operation.route().method(), fill(operation, valid, null), null, Map.of(),
                            Map.of("Origin", "http://elsewhere.example"), 403);
                    assertThat(refused.json().at("/error/field").asText()).as(operation.route().toString())
                            .isEqualTo("Origin");
                }
            }
        } finally {
            http = tokened;
        }
    }

    private static boolean hasQueryParameter(Operation operation, String name) {
        return operation.parameters().stream().anyMatch(parameter ->
                parameter.get("in").asText().equals("query") && parameter.get("name").asText().equals(name));
    }

    /** The operation's path with each parameter set from {@code valid}, except {@code invalid}, which gets a bad name. */
    private static String fill(Operation operation, Map<String, String> valid, String invalid) {
        String path = operation.route().path();
        for (JsonNode parameter : operation.parameters()) {
            String name = parameter.get("in").asText().equals("path") ? parameter.get("name").asText() : null;
            if (name != null) {
                assertThat(valid).as("a value for path parameter " + name).containsKey(name);
                path = path.replace("{" + name + "}", name.equals(invalid) ? "bad%20name" : valid.get(name));
            }
        }
        return path;
    }

    private String submitIdle() {
        return expect("POST", "/api/v1/jobs", "{\"kind\": \"report\", \"queue\": \"idle\"}", 201).json().get("id").asText();
    }

    private Http.Answer expect(String method, String path, String body, int status) {
        return expect(method, path, body, Map.of(), status);
    }

    private Http.Answer expect(String method, String path, String body, Map<String, String> headers, int status) {
        return expect(method, path, body, bearer(ADMIN_TOKEN), headers, status);
    }

    /** Sends the request, asserts its status, and records what the document says of the answer. */
    private Http.Answer expect(String method, String path, String body, Map<String, String> auth,
            Map<String, String> headers, int status) {
        Map<String, String> all = new HashMap<>(auth);
        all.putAll(headers);
        if (body != null) {
            all.put("Content-Type", "application/json");
        }
        Http.Answer answer = http.call(method, path, body, all);
        assertThat(answer.status()).as(method + " " + path + ": " + answer.text()).isEqualTo(status);
        check(method, path, answer);
        return answer;
    }

    private void check(String method, String path, Http.Answer answer) {
        String where = method + " " + path + " → " + answer.status();
        Operation operation = document.match(method, path.split("\\?")[0]).orElse(null);
        if (operation == null) {
            problems.add(where + ": no documented operation");
            return;
        }
        String status = String.valueOf(answer.status());
        if (!document.statuses(operation).contains(status)) {
            problems.add(where + ": status not documented for " + operation.route());
            return;
        }
        List<String> types = document.contentTypes(operation, status);
        String type = answer.text().isEmpty() && types.isEmpty() ? NO_CONTENT
                : answer.contentType() == null ? "(none)" : answer.contentType().split(";")[0].strip();
        if (!type.equals(NO_CONTENT) && !types.contains(type)) {
            problems.add(where + ": content type " + type + " not documented (" + types + ")");
            return;
        }
        covered.add(operation.route().method() + " " + operation.route().path() + " " + status + " " + type);
        if (!type.equals(NO_CONTENT)) {
            JsonNode schema = document.schema(operation, status, type);
            for (JsonNode item : items(type, answer.text())) {
                document.validate(schema, item).forEach(error -> problems.add(where + " " + type + ": " + error
                        + " in " + abbreviated(item)));
            }
        }
    }

    private static String abbreviated(JsonNode item) {
        String text = item.toString();
        return text.length() > 300 ? text.substring(0, 300) + "…" : text;
    }

    /** The values a body holds: one JSON value, one per NDJSON line or SSE {@code data:} line, or the text. */
    private List<JsonNode> items(String type, String text) {
        List<JsonNode> items = new ArrayList<>();
        switch (type) {
            case "application/json" -> items.add(OpenApiDocument.json(text));
            case "application/x-ndjson" -> text.lines().filter(line -> !line.isBlank())
                    .forEach(line -> items.add(OpenApiDocument.json(line)));
            case "text/event-stream" -> text.lines().filter(line -> line.startsWith("data: "))
                    .forEach(line -> items.add(OpenApiDocument.json(line.substring("data: ".length()))));
            case "text/plain" -> items.add(OpenApiDocument.text(text));
            default -> problems.add("no check for content type " + type);
        }
        if (items.isEmpty()) {
            problems.add("an empty " + type + " body");
        }
        return items;
    }

    /** Each documented status and content type, bar {@link #NOT_WALKED}, that no answer had. */
    private List<String> uncovered() {
        List<String> missing = new ArrayList<>();
        for (Operation operation : document.operations()) {
            for (String status : document.statuses(operation)) {
                List<String> types = document.contentTypes(operation, status);
                for (String type : types.isEmpty() ? List.of(NO_CONTENT) : types) {
                    String key = operation.route().method() + " " + operation.route().path() + " " + status + " " + type;
                    String operationsStatus = operation.route().method() + " " + operation.route().path() + " " + status;
                    if (!NOT_WALKED.contains(status) && !NOT_WALKED.contains(operationsStatus) && !covered.contains(key)) {
                        missing.add(key);
                    }
                }
            }
        }
        return missing;
    }

    /**
     * The routes of API.md's endpoint table: each row's first cell, {@code `METHOD /path`} pieces
     * joined by {@code ·}; a piece that is only {@code `/suffix`} replaces the last segment of the
     * piece before it; a query ({@code ?wait=30s}) is not part of the route.
     */
    private static Set<Route> apiMdRoutes() throws Exception {
        String page = Files.readString(API_MD);
        String table = page.substring(page.indexOf("### Endpoints"));
        table = table.substring(0, table.indexOf("\n\n", table.indexOf("|")));
        Pattern piece = Pattern.compile("`(?:([A-Z]+) )?(/[^`?]*)[^`]*`");
        Set<Route> routes = new HashSet<>();
        for (String row : table.lines().filter(line -> line.startsWith("| `")).toList()) {
            String cell = row.substring(2, row.indexOf(" | "));
            Route previous = null;
            Matcher matcher = piece.matcher(cell);
            while (matcher.find()) {
                Route route = matcher.group(1) != null ? new Route(matcher.group(1), matcher.group(2))
                        : new Route(previous.method(), previous.path().substring(0, previous.path().lastIndexOf('/'))
                                + matcher.group(2));
                routes.add(route);
                previous = route;
            }
        }
        assertThat(routes).as("routes read from API.md").hasSizeGreaterThan(10);
        return routes;
    }

    private static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }

    private static String sha256(String token) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    }
}
