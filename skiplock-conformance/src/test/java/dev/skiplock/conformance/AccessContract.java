package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.Json;
import dev.skiplock.server.ServerConfig;
import dev.skiplock.server.SkiplockServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Tokens and tenants, and fallback mode (API.md, DESIGN §6, seed ADR-0062 §7). */
abstract class AccessContract extends ContractBase {
    private final HttpClient client = HttpClient.newHttpClient();

    private Skiplock commandWorker(String queue, int concurrency) {
        return started(builder(config -> config.queue(queue, concurrency))
                .handler("command", JsonNode.class, SkiplockServer.commandRunner()));
    }

    private HttpResponse<String> call(int port, String method, String path, String token, String body)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String sha256(String token) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void tokensMapToTenantsAndTenantsCannotSeeEachOther() throws Exception {
        Skiplock skiplock = commandWorker("default", 1);
        Map<String, String> tokens = Map.of(sha256("acme-token"), "acme", sha256("globex-token"), "globex",
                sha256("root-token"), "*");
        try (SkiplockServer server = SkiplockServer.start(skiplock,
                new ServerConfig("127.0.0.1", 0, 1 << 20, true, Map.of(), tokens, null, java.util.List.of()))) {
            int port = server.port();
            assertThat(call(port, "GET", "/api/v1/jobs", null, null).statusCode()).isEqualTo(401);
            assertThat(call(port, "GET", "/api/v1/jobs", "wrong", null).body()).contains("\"code\":\"unauthenticated\"");
            assertThat(call(port, "GET", "/healthz", null, null).statusCode()).isEqualTo(200);

            HttpResponse<String> created = call(port, "POST", "/api/v1/jobs", "acme-token",
                    "{\"kind\": \"report\", \"queue\": \"idle\", \"tenant\": \"globex\"}");
            assertThat(created.statusCode()).as("a tenant field in the body is refused").isEqualTo(400);
            created = call(port, "POST", "/api/v1/jobs", "acme-token", "{\"kind\": \"report\", \"queue\": \"idle\"}");
            assertThat(created.statusCode()).isEqualTo(201);
            String id = dev.skiplock.internal.Json.read(created.body()).get("id").asText();
            assertThat(created.body()).contains("\"tenant\":\"acme\"");

            assertThat(call(port, "GET", "/api/v1/jobs/" + id, "globex-token", null).statusCode()).isEqualTo(404);
            assertThat(call(port, "POST", "/api/v1/jobs/" + id + "/cancel", "globex-token", "").statusCode())
                    .isEqualTo(404);
            assertThat(call(port, "POST", "/api/v1/jobs/" + id + "/signals/approve", "globex-token", "").statusCode())
                    .isEqualTo(404);
            assertThat(call(port, "GET", "/api/v1/jobs/" + id + "?wait=1s", "globex-token", null).statusCode())
                    .isEqualTo(404);
            assertThat(call(port, "GET", "/api/v1/jobs", "globex-token", null).body()).contains("\"jobs\":[]");
            assertThat(call(port, "GET", "/api/v1/jobs/" + id, "acme-token", null).statusCode()).isEqualTo(200);
            assertThat(call(port, "POST", "/api/v1/queues/idle/pause", "acme-token", "").statusCode()).isEqualTo(403);
            assertThat(call(port, "POST", "/api/v1/queues/idle/pause", "root-token", "").statusCode()).isEqualTo(200);
        }
    }

    /**
     * The scheme of an Authorization header is taken in any case (RFC 9110), and a 401 says which
     * scheme to use. Before, "bearer" with a valid token was refused, with no WWW-Authenticate.
     */
    @Test
    void aBearerTokenIsTakenWhateverTheCaseOfItsScheme() throws Exception {
        Skiplock skiplock = client();
        try (SkiplockServer server = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0, 1 << 20, true,
                Map.of(), Map.of(sha256("acme-token"), "acme"), null, java.util.List.of()))) {
            for (String scheme : java.util.List.of("bearer", "BEARER", "Bearer")) {
                HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.port() + "/api/v1/whoami")).header("Authorization", scheme + " acme-token").build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).as(scheme).isEqualTo(200);
            }
            HttpResponse<String> refused = call(server.port(), "GET", "/api/v1/whoami", "wrong", null);
            assertThat(refused.statusCode()).isEqualTo(401);
            assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        }
    }

    @Test
    void anAdminTokenSeesAndActsOnEveryTenantsJobsAndFiltersByTenant() throws Exception {
        Skiplock skiplock = client();
        Map<String, String> tokens = Map.of(sha256("acme-token"), "acme", sha256("globex-token"), "globex",
                sha256("root-token"), "*");
        try (SkiplockServer server = SkiplockServer.start(skiplock,
                new ServerConfig("127.0.0.1", 0, 1 << 20, true, Map.of(), tokens, null, java.util.List.of()))) {
            int port = server.port();
            String acme = id(call(port, "POST", "/api/v1/jobs", "acme-token", "{\"kind\": \"report\", \"queue\": \"idle\"}"));
            String globex = id(call(port, "POST", "/api/v1/jobs", "globex-token", "{\"kind\": \"report\", \"queue\": \"idle\"}"));
            String own = id(call(port, "POST", "/api/v1/jobs", "root-token", "{\"kind\": \"report\", \"queue\": \"idle\"}"));
            assertThat(call(port, "GET", "/api/v1/jobs/" + own, "root-token", null).body())
                    .as("an admin enqueues as tenant default").contains("\"tenant\":\"default\"");

            assertThat(call(port, "GET", "/api/v1/jobs/" + acme, "root-token", null).body()).contains("\"tenant\":\"acme\"");
            assertThat(call(port, "GET", "/api/v1/jobs/" + globex + "?wait=10ms", "root-token", null).statusCode()).isEqualTo(200);
            assertThat(call(port, "GET", "/api/v1/jobs/" + acme + "/events", "root-token", null).body()).contains("\"queued\"");
            assertThat(call(port, "GET", "/api/v1/jobs/" + acme + "/events/download", "root-token", null).statusCode()).isEqualTo(200);
            assertThat(call(port, "GET", "/api/v1/jobs/" + java.util.UUID.randomUUID(), "root-token", null).statusCode())
                    .isEqualTo(404);

            assertThat(listed(port, "", "root-token")).as("newest first, every tenant").containsExactly(own, globex, acme);
            assertThat(queued(port, "root-token")).as("an admin's queue counts span every tenant").isEqualTo(3);
            assertThat(queued(port, "acme-token")).as("a tenant's, its own jobs").isEqualTo(1);
            assertThat(listed(port, "?tenant=acme", "root-token")).containsExactly(acme);
            assertThat(listed(port, "?tenant=nobody", "root-token")).isEmpty();
            JsonNode first = dev.skiplock.internal.Json.read(call(port, "GET", "/api/v1/jobs?limit=2", "root-token", null).body());
            assertThat(listed(port, "?limit=2&cursor=" + first.get("nextCursor").asText(), "root-token"))
                    .as("the cursor pages across tenants").containsExactly(acme);

            assertThat(call(port, "POST", "/api/v1/jobs/" + acme + "/signals/approve", "root-token", "true").statusCode())
                    .isEqualTo(200);
            assertThat(call(port, "POST", "/api/v1/jobs/" + acme + "/cancel", "root-token", "").body())
                    .contains("\"status\":\"cancelled\"", "\"tenant\":\"acme\"");
            assertThat(call(port, "POST", "/api/v1/jobs/" + acme + "/retry", "root-token", "").body())
                    .contains("\"status\":\"queued\"", "\"tenant\":\"acme\"");
            assertThat(call(port, "POST", "/api/v1/jobs/" + acme + "/cancel", "root-token", "").statusCode()).isEqualTo(202);
            assertThat(call(port, "GET", "/api/v1/jobs/" + acme + "/events?follow=true", "root-token", null).body())
                    .contains("\"cancelled\"");
            assertThat(call(port, "GET", "/api/v1/jobs/" + acme + "/events/stream", "root-token", null).body())
                    .contains("\"cancelled\"");
            assertThat(call(port, "DELETE", "/api/v1/jobs/" + acme, "root-token", null).statusCode()).isEqualTo(204);
            assertThat(call(port, "GET", "/api/v1/jobs/" + acme, "acme-token", null).statusCode()).isEqualTo(404);
            assertThat(skiplock.tenant("globex").get(java.util.UUID.fromString(globex))).as("untouched").isPresent();
        }
    }

    /** Queued jobs of queue {@code idle} as {@code GET /api/v1/queues} counts them for the token. */
    private int queued(int port, String token) throws Exception {
        for (JsonNode queue : dev.skiplock.internal.Json.read(call(port, "GET", "/api/v1/queues", token, null).body())
                .get("queues")) {
            if (queue.get("name").asText().equals("idle")) {
                return queue.path("counts").path("queued").asInt();
            }
        }
        return 0;
    }

    @Test
    void aTenantTokenListsOnlyItsOwnTenantAndNamingAnotherIsRefused() throws Exception {
        Skiplock skiplock = client();
        Map<String, String> tokens = Map.of(sha256("acme-token"), "acme", sha256("root-token"), "*");
        try (SkiplockServer server = SkiplockServer.start(skiplock,
                new ServerConfig("127.0.0.1", 0, 1 << 20, true, Map.of(), tokens, null, java.util.List.of()))) {
            int port = server.port();
            String acme = id(call(port, "POST", "/api/v1/jobs", "acme-token", "{\"kind\": \"report\", \"queue\": \"idle\"}"));
            String other = skiplock.tenant("globex").enqueue(dev.skiplock.JobRequest.of("report", null)).id().toString();

            assertThat(listed(port, "", "acme-token")).containsExactly(acme);
            assertThat(listed(port, "?tenant=acme", "acme-token")).containsExactly(acme);
            HttpResponse<String> refused = call(port, "GET", "/api/v1/jobs?tenant=globex", "acme-token", null);
            assertThat(refused.statusCode()).isEqualTo(403);
            assertThat(refused.body()).contains("\"code\":\"permission_denied\"", "\"field\":\"tenant\"")
                    .doesNotContain(other);
            assertThat(call(port, "GET", "/api/v1/jobs?tenant=no%2Fslash", "root-token", null).body())
                    .contains("\"field\":\"tenant\"");
            assertThat(call(port, "GET", "/api/v1/jobs/" + other + "/events", "acme-token", null).statusCode()).isEqualTo(404);
            assertThat(call(port, "DELETE", "/api/v1/jobs/" + other, "acme-token", null).statusCode()).isEqualTo(404);

            assertThat(call(port, "GET", "/api/v1/whoami", "acme-token", null).body())
                    .isEqualTo("{\"tenant\":\"acme\",\"admin\":false,\"allTenants\":false}");
            assertThat(call(port, "GET", "/api/v1/whoami", "root-token", null).body())
                    .isEqualTo("{\"tenant\":\"default\",\"admin\":true,\"allTenants\":true}");
            assertThat(call(port, "GET", "/api/v1/whoami", null, null).statusCode()).isEqualTo(401);
        }
    }

    @Test
    void withoutTokensEveryCallerIsTenantDefaultAndSeesOnlyItsJobs() throws Exception {
        Skiplock skiplock = client();
        String other = skiplock.tenant("acme").enqueue(dev.skiplock.JobRequest.of("report", null)).id().toString();
        try (SkiplockServer server = SkiplockServer.start(skiplock,
                new ServerConfig("127.0.0.1", 0, 1 << 20, true, Map.of()))) {
            int port = server.port();
            String own = id(call(port, "POST", "/api/v1/jobs", null, "{\"kind\": \"report\", \"queue\": \"idle\"}"));

            assertThat(listed(port, "", null)).containsExactly(own);
            assertThat(call(port, "GET", "/api/v1/jobs/" + other, null, null).statusCode()).isEqualTo(404);
            assertThat(call(port, "GET", "/api/v1/jobs?tenant=acme", null, null).statusCode()).isEqualTo(403);
            assertThat(call(port, "GET", "/api/v1/whoami", null, null).body())
                    .isEqualTo("{\"tenant\":\"default\",\"admin\":true,\"allTenants\":false}");
        }
    }

    private static String id(HttpResponse<String> created) {
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return dev.skiplock.internal.Json.read(created.body()).get("id").asText();
    }

    /** The ids {@code GET /api/v1/jobs} answers with {@code query}, in its order. */
    private java.util.List<String> listed(int port, String query, String token) throws Exception {
        HttpResponse<String> answer = call(port, "GET", "/api/v1/jobs" + query, token, null);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        java.util.List<String> ids = new java.util.ArrayList<>();
        dev.skiplock.internal.Json.read(answer.body()).get("jobs").forEach(job -> ids.add(job.get("id").asText()));
        return ids;
    }

    /**
     * Without tokens the server answers its own machine's programs only: a call from another site's
     * page (its browser adds {@code Origin}) or one addressed to another name (DNS rebinding: the page's
     * own name re-pointed at 127.0.0.1) is refused and changes nothing. Before, any page the operator
     * opened could submit a job to the server on 127.0.0.1.
     */
    @Test
    void withoutTokensACallFromAnotherSitesPageOrNameIsRefused() throws Exception {
        Skiplock skiplock = client();
        try (SkiplockServer server = SkiplockServer.start(skiplock,
                new ServerConfig("127.0.0.1", 0, 1 << 20, true, Map.of()))) {
            int port = server.port();
            String job = "{\"kind\": \"report\", \"queue\": \"idle\"}";
            HttpResponse<String> crossSite = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/api/v1/jobs")).header("Origin", "http://evil.example").header("Content-Type", "text/plain")
                    .POST(HttpRequest.BodyPublishers.ofString(job)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(crossSite.statusCode()).as(crossSite.body()).isEqualTo(403);
            assertThat(Json.read(crossSite.body()).at("/error/field").asText()).isEqualTo("Origin");
            HttpResponse<String> sandboxed = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/api/v1/queues/idle/pause")).header("Origin", "null")
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(sandboxed.statusCode()).as(sandboxed.body()).isEqualTo(403);

            assertThat(rawStatusLine(port, "evil.example:" + port)).contains(" 403 ");
            assertThat(rawStatusLine(port, "evil.example:" + port, "/metrics")).contains(" 403 ");
            assertThat(rawStatusLine(port, "127.0.0.1:" + port, "/metrics")).contains(" 200 ");
            assertThat(rawStatusLine(port, "127.0.0.1.evil.example")).contains(" 403 ");
            assertThat(listed(port, "", null)).as("nothing was enqueued or paused").isEmpty();
            assertThat(skiplock.pausedQueues()).isEmpty();

            // the server's own pages, the CLI and scripts
            assertThat(rawStatusLine(port, "localhost:" + port)).contains(" 200 ");
            assertThat(rawStatusLine(port, "127.0.0.1:" + port)).contains(" 200 ");
            HttpResponse<String> ownPage = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/api/v1/jobs")).header("Origin", "http://127.0.0.1:" + port)
                    .POST(HttpRequest.BodyPublishers.ofString(job)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ownPage.statusCode()).as(ownPage.body()).isEqualTo(201);
        }
    }

    /** The status line of {@code GET /api/v1/whoami} sent with {@code Host: host} (HttpClient will not send another Host). */
    private static String rawStatusLine(int port, String host) throws Exception {
        return rawStatusLine(port, host, "/api/v1/whoami");
    }

    private static String rawStatusLine(int port, String host, String path) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.setSoTimeout((int) WAIT.toMillis());
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + host
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            return new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    StandardCharsets.US_ASCII)).readLine();
        }
    }

    /**
     * A server started without arbitrary commands retries only what it would take today: a command
     * job submitted while they were allowed (an argv of its own, or a tool given an environment) is
     * refused with 409 naming the field and stays as it was; a tool job is re-queued. Before, the
     * retry re-queued the stored argv after a restart without {@code --allow-commands}.
     */
    @Test
    void aServerWithoutArbitraryCommandsRetriesOnlyWhatItWouldTake() throws Exception {
        Skiplock skiplock = client();
        Map<String, java.util.List<String>> tools = Map.of("greet", java.util.List.of("echo", "hello", "{name}"));
        String argv;
        String tool;
        String toolWithEnv;
        try (SkiplockServer allowing = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0, 1 << 20, true, tools))) {
            int port = allowing.port();
            argv = id(call(port, "POST", "/api/v1/jobs", null,
                    "{\"kind\": \"command\", \"queue\": \"idle\", \"args\": {\"argv\": [\"true\"]}}"));
            tool = id(call(port, "POST", "/api/v1/jobs", null, "{\"kind\": \"command\", \"queue\": \"idle\","
                    + " \"args\": {\"tool\": \"greet\", \"params\": {\"name\": \"x\"}}}"));
            toolWithEnv = id(call(port, "POST", "/api/v1/jobs", null, "{\"kind\": \"command\", \"queue\": \"idle\","
                    + " \"args\": {\"tool\": \"greet\", \"params\": {\"name\": \"x\"}, \"env\": {\"A\": \"b\"}}}"));
            for (String id : java.util.List.of(argv, tool, toolWithEnv)) {
                assertThat(call(port, "POST", "/api/v1/jobs/" + id + "/cancel", null, null).statusCode()).isEqualTo(202);
            }
        }
        try (SkiplockServer toolsOnly = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0, 1 << 20, false, tools))) {
            int port = toolsOnly.port();
            for (Map.Entry<String, String> refused : Map.of(argv, "args.argv", toolWithEnv, "args.env").entrySet()) {
                HttpResponse<String> retry = call(port, "POST", "/api/v1/jobs/" + refused.getKey() + "/retry", null, null);

                assertThat(retry.statusCode()).as(retry.body()).isEqualTo(409);
                assertThat(Json.read(retry.body()).at("/error/field").asText()).isEqualTo(refused.getValue());
                assertThat(skiplock.get(java.util.UUID.fromString(refused.getKey())).orElseThrow().status())
                        .isEqualTo(dev.skiplock.JobStatus.CANCELLED);
            }
            HttpResponse<String> retried = call(port, "POST", "/api/v1/jobs/" + tool + "/retry", null, null);
            assertThat(retried.statusCode()).as(retried.body()).isEqualTo(202);
        }
    }

    /**
     * Where only configured tools run, a tool job cannot bring its own environment or directory:
     * {@code LD_PRELOAD}, {@code PATH} (another program of the tool's name), {@code GIT_SSH_COMMAND}
     * or {@code PERL5OPT} would run what the caller likes. Refused naming the field, nothing stored.
     * Before, both were taken.
     */
    @Test
    void whereOnlyToolsRunAToolJobCannotSetItsEnvironmentOrDirectory() throws Exception {
        Skiplock skiplock = client();
        try (SkiplockServer server = SkiplockServer.start(skiplock, new ServerConfig("127.0.0.1", 0, 1 << 20, false,
                Map.of("greet", java.util.List.of("echo", "hello", "{name}"))))) {
            int port = server.port();
            HttpResponse<String> withEnv = call(port, "POST", "/api/v1/jobs", null, "{\"kind\": \"command\", \"args\":"
                    + " {\"tool\": \"greet\", \"params\": {\"name\": \"x\"}, \"env\": {\"LD_PRELOAD\": \"/tmp/x.so\"}}}");
            assertThat(withEnv.statusCode()).as(withEnv.body()).isEqualTo(400);
            assertThat(Json.read(withEnv.body()).at("/error/field").asText()).isEqualTo("args.env");
            HttpResponse<String> withCwd = call(port, "POST", "/api/v1/jobs", null, "{\"kind\": \"command\", \"args\":"
                    + " {\"tool\": \"greet\", \"params\": {\"name\": \"x\"}, \"cwd\": \"/tmp\"}}");
            assertThat(withCwd.statusCode()).as(withCwd.body()).isEqualTo(400);
            assertThat(Json.read(withCwd.body()).at("/error/field").asText()).isEqualTo("args.cwd");
            assertThat(listed(port, "", null)).isEmpty();

            assertThat(id(call(port, "POST", "/api/v1/jobs", null, "{\"kind\": \"command\", \"queue\": \"idle\","
                    + " \"args\": {\"tool\": \"greet\", \"params\": {\"name\": \"x\"}}}"))).isNotEmpty();
        }
    }

    @Test
    void withoutTokensTheServerRefusesToListenBeyondLoopback() {
        Skiplock skiplock = client();
        assertThatThrownBy(() -> SkiplockServer.start(skiplock,
                new ServerConfig("0.0.0.0", 0, 1 << 20, false, Map.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("host:");
    }

    /**
     * Fallback mode runs a job at once under its cap: a job for later or after others would hold a
     * slot while it waited (a few such requests, dropped by their callers, refused every later
     * submit), and a batch would be queued where nothing serves it. Refused, nothing stored. Before,
     * the first held the only slot for good, and the batch answered 201 with jobs that never ran; a
     * unique key held by a job of another queue held the slot for good too (that job was awaited).
     */
    @Test
    void fallbackModeRefusesWhatCannotRunAtOnce() throws Exception {
        Skiplock skiplock = commandWorker(ServerConfig.FALLBACK_QUEUE, 1);
        String parent = skiplock.enqueue(dev.skiplock.JobRequest.of("report", null).withQueue("idle")).id().toString();
        try (SkiplockServer server = SkiplockServer.start(skiplock,
                new ServerConfig("127.0.0.1", 0, 1 << 20, true, Map.of(), Map.of(), 1, java.util.List.of()))) {
            int port = server.port();
            HttpResponse<String> refusedLater = submittedWithin(port, "{\"kind\": \"command\", \"runAt\":"
                    + " \"2099-01-01T00:00:00Z\", \"args\": {\"argv\": [\"true\"]}}");
            assertThat(refusedLater.statusCode()).as(refusedLater.body()).isEqualTo(400);
            assertThat(Json.read(refusedLater.body()).at("/error/field").asText()).isEqualTo("runAt");
            HttpResponse<String> afterOthers = call(port, "POST", "/api/v1/jobs", null, "{\"kind\": \"command\","
                    + " \"dependsOn\": [\"" + parent + "\"], \"args\": {\"argv\": [\"true\"]}}");
            assertThat(afterOthers.statusCode()).as(afterOthers.body()).isEqualTo(400);
            assertThat(Json.read(afterOthers.body()).at("/error/field").asText()).isEqualTo("dependsOn");
            HttpResponse<String> batch = call(port, "POST", "/api/v1/jobs/batch", null,
                    "{\"jobs\": [{\"kind\": \"command\", \"args\": {\"argv\": [\"true\"]}}]}");
            assertThat(batch.statusCode()).as(batch.body()).isEqualTo(409);
            assertThat(listed(port, "", null)).containsExactly(parent);
            // a unique key a live job of another queue holds: that job, which nothing here runs, is not awaited
            String holder = skiplock.enqueue(dev.skiplock.JobRequest.of("report", null).withQueue("idle")
                    .withUniqueKey("nightly")).id().toString();
            HttpResponse<String> heldElsewhere = submittedWithin(port, "{\"kind\": \"command\", \"uniqueKey\":"
                    + " \"nightly\", \"args\": {\"argv\": [\"true\"]}}");
            assertThat(heldElsewhere.statusCode()).as(heldElsewhere.body()).isEqualTo(409);
            assertThat(Json.read(heldElsewhere.body()).at("/error/field").asText()).isEqualTo("uniqueKey");
            assertThat(heldElsewhere.body()).contains(holder);

            HttpResponse<String> now = call(port, "POST", "/api/v1/jobs", null,
                    "{\"kind\": \"command\", \"args\": {\"argv\": [\"true\"]}}");
            assertThat(now.statusCode()).as("the slot is free").isEqualTo(200);
        }
    }

    /** The answer to a submit of {@code body}, or a failure once it takes longer than WAIT (a request held for good). */
    private HttpResponse<String> submittedWithin(int port, String body) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return call(port, "POST", "/api/v1/jobs", null, body);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void fallbackModeRunsJobsAtOnceAndRejectsWhenTheCapIsFull() throws Exception {
        Skiplock skiplock = commandWorker(ServerConfig.FALLBACK_QUEUE, 1);
        try (SkiplockServer server = SkiplockServer.start(skiplock,
                new ServerConfig("127.0.0.1", 0, 1 << 20, true, Map.of(), Map.of(), 1, java.util.List.of()))) {
            int port = server.port();
            CompletableFuture<HttpResponse<String>> slow = CompletableFuture.supplyAsync(() -> {
                try {
                    return call(port, "POST", "/api/v1/jobs", null,
                            "{\"kind\": \"command\", \"args\": {\"argv\": [\"sh\", \"-c\", \"sleep 1; echo done\"]}}");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(WAIT).until(() -> skiplock.list(dev.skiplock.JobQuery.all()
                    .withStatus(dev.skiplock.JobStatus.RUNNING)).jobs().size() == 1);

            HttpResponse<String> rejected = call(port, "POST", "/api/v1/jobs", null,
                    "{\"kind\": \"command\", \"args\": {\"argv\": [\"true\"]}}");
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.headers().firstValue("Retry-After")).isPresent();

            HttpResponse<String> finished = slow.get();
            assertThat(finished.statusCode()).isEqualTo(200);
            assertThat(finished.body()).contains("\"status\":\"succeeded\"");
            assertThat(call(port, "POST", "/api/v1/jobs", null,
                    "{\"kind\": \"command\", \"args\": {\"argv\": [\"true\"]}}").statusCode()).isEqualTo(200);
            HttpResponse<String> inMemory = call(port, "POST", "/api/v1/jobs", null,
                    "{\"kind\": \"command\", \"durable\": false, \"args\": {\"argv\": [\"true\"]}}");
            assertThat(inMemory.statusCode()).as("an in-memory job, as API.md's fallback mode answers").isEqualTo(200);
            assertThat(inMemory.body()).contains("\"status\":\"succeeded\"");
        }
    }
}
