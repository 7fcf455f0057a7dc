package dev.skiplock.conformance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.skiplock.server.SkiplockServer.Route;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The served OpenAPI 3.1 document read as a tree: its operations, the statuses, content types and
 * schemas each documents, and the check of an answer's body against them. OpenAPI 3.1 schemas are
 * JSON Schema 2020-12, so a response schema is validated as one, with the document's
 * {@code components/schemas} as its {@code $defs} (formats asserted: uuid, date-time).
 */
final class OpenApiDocument {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final List<String> METHODS = List.of("get", "put", "post", "delete", "patch", "head", "options",
            "trace");
    private static final String COMPONENT_SCHEMAS = "#/components/schemas/";

    /** One documented operation: its route, the operation object and its parameters ($refs resolved). */
    record Operation(Route route, JsonNode node, List<JsonNode> parameters, Pattern pathPattern) {
        long templatedSegments() {
            return route.path().chars().filter(c -> c == '{').count();
        }
    }

    private final JsonNode root;
    private final Map<Route, Operation> operations = new LinkedHashMap<>();
    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private final ObjectNode definitions;

    private OpenApiDocument(JsonNode root) {
        this.root = root;
        this.definitions = (ObjectNode) rewriteRefs(root.path("components").path("schemas").deepCopy());
        root.path("paths").properties().forEach(path -> METHODS.forEach(method -> {
            JsonNode operation = path.getValue().get(method);
            if (operation != null) {
                List<JsonNode> parameters = new ArrayList<>();
                path.getValue().path("parameters").forEach(parameter -> parameters.add(resolve(parameter)));
                operation.path("parameters").forEach(parameter -> parameters.add(resolve(parameter)));
                Route route = new Route(method.toUpperCase(), path.getKey());
                String regex = Pattern.quote(path.getKey()).replaceAll("\\{[^}]+}", "\\\\E[^/]+\\\\Q");
                operations.put(route, new Operation(route, operation, parameters, Pattern.compile(regex)));
            }
        }));
    }

    static OpenApiDocument read(String text) {
        try {
            return new OpenApiDocument(MAPPER.readTree(text));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the OpenAPI document is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** What swagger-parser makes of {@code text}: its messages (errors and warnings) and its operations. */
    static SwaggerParseResult parse(String text) {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        return new OpenAPIV3Parser().readContents(text, null, options);
    }

    /** The operations swagger-parser found, as routes. */
    static Set<Route> routes(SwaggerParseResult result) {
        Set<Route> routes = new HashSet<>();
        result.getOpenAPI().getPaths().forEach((path, item) -> item.readOperationsMap().keySet()
                .forEach(method -> routes.add(new Route(method.name(), path))));
        return routes;
    }

    JsonNode root() {
        return root;
    }

    Set<Route> routes() {
        return operations.keySet();
    }

    List<Operation> operations() {
        return List.copyOf(operations.values());
    }

    /** The operation answering {@code method} on a concrete path (a literal segment beats a parameter). */
    Optional<Operation> match(String method, String path) {
        return operations.values().stream()
                .filter(operation -> operation.route().method().equals(method))
                .filter(operation -> operation.pathPattern().matcher(path).matches())
                .min(Comparator.comparingLong(Operation::templatedSegments));
    }

    /** Documented statuses, in document order. */
    List<String> statuses(Operation operation) {
        List<String> statuses = new ArrayList<>();
        operation.node().path("responses").fieldNames().forEachRemaining(statuses::add);
        return statuses;
    }

    /** The content types documented for {@code status}: empty for a response without a body. */
    List<String> contentTypes(Operation operation, String status) {
        List<String> types = new ArrayList<>();
        response(operation, status).path("content").fieldNames().forEachRemaining(types::add);
        return types;
    }

    JsonNode schema(Operation operation, String status, String contentType) {
        return response(operation, status).path("content").path(contentType).path("schema");
    }

    /** The security requirements that apply: the operation's own, else the document's. */
    boolean secured(Operation operation) {
        JsonNode security = operation.node().has("security") ? operation.node().get("security") : root.path("security");
        return !security.isEmpty();
    }

    boolean hasRequestBody(Operation operation) {
        return operation.node().has("requestBody");
    }

    /** The schema's complaints about {@code instance}; empty when it is valid. */
    List<String> validate(JsonNode schema, JsonNode instance) {
        ObjectNode wrapper = schema.isObject() ? (ObjectNode) rewriteRefs(schema.deepCopy()) : MAPPER.createObjectNode();
        wrapper.put("$schema", SpecificationVersion.DRAFT_2020_12.getDialectId());
        wrapper.set("$defs", definitions);
        Schema compiled = registry.getSchema(wrapper);
        return compiled.validate(instance, context -> context.executionConfig(config -> config.formatAssertionsEnabled(true)))
                .stream().map(Object::toString).toList();
    }

    static JsonNode text(String text) {
        return TextNode.valueOf(text);
    }

    static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage() + ": " + text, e);
        }
    }

    /** The component a documented status refers to ({@code Forbidden} for {@code #/components/responses/Forbidden}), or null. */
    String responseComponent(Operation operation, String status) {
        JsonNode ref = operation.node().path("responses").path(status).path("$ref");
        return ref.isTextual() ? ref.asText().substring(ref.asText().lastIndexOf('/') + 1) : null;
    }

    private JsonNode response(Operation operation, String status) {
        return resolve(operation.node().path("responses").path(status));
    }

    /** Follows a local {@code $ref} (parameters, responses) to what it names. */
    private JsonNode resolve(JsonNode node) {
        while (node.has("$ref")) {
            node = root.at(node.get("$ref").asText().substring(1));
        }
        return node;
    }

    /** {@code #/components/schemas/X} → {@code #/$defs/X}, everywhere in {@code node}. */
    private static JsonNode rewriteRefs(JsonNode node) {
        if (node instanceof ObjectNode object) {
            JsonNode ref = object.get("$ref");
            if (ref != null && ref.isTextual() && ref.asText().startsWith(COMPONENT_SCHEMAS)) {
                object.put("$ref", "#/$defs/" + ref.asText().substring(COMPONENT_SCHEMAS.length()));
            }
            object.properties().forEach(entry -> rewriteRefs(entry.getValue()));
        } else if (node.isArray()) {
            node.forEach(OpenApiDocument::rewriteRefs);
        }
        return node;
    }
}
