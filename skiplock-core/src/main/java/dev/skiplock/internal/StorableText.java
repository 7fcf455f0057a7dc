package dev.skiplock.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Makes text from inside a job storable in every database: PostgreSQL's {@code text} and
 * {@code jsonb} reject the NUL character (jsonb even its {@code \u0000} escape), and a lone UTF-16
 * surrogate cannot be encoded as UTF-8. Both become U+FFFD, the Unicode replacement character, as
 * invalid UTF-8 in a command's output already does when it is decoded. Without this, one job's
 * outcome or log line made its worker's whole completion batch fail, again and again.
 */
public final class StorableText {
    public static final char REPLACEMENT = '\uFFFD';

    private StorableText() {
    }

    /** {@code text} with NUL and lone surrogates replaced; the same instance when it had none. */
    public static String of(String text) {
        if (text == null) {
            return null;
        }
        int first = firstUnstorable(text);
        if (first < 0) {
            return text;
        }
        StringBuilder clean = new StringBuilder(text.length()).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) {
                clean.append(REPLACEMENT);
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                clean.append(c).append(text.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                clean.append(REPLACEMENT);
            } else {
                clean.append(c);
            }
        }
        return clean.toString();
    }

    /** A JSON tree whose strings and field names are all storable; the same instance when they were. */
    public static JsonNode of(JsonNode node) {
        if (node == null || !needsCleaning(node)) {
            return node;
        }
        return cleaned(node);
    }

    /** Whether every string and field name of {@code node} is storable as it is (null: yes). */
    /**
     * Throws an {@link IllegalArgumentException} naming {@code field} if {@code node} nests arrays and
     * objects deeper than {@link dev.skiplock.JobRequest#MAX_NESTING} levels.
     */
    public static void requireNesting(String field, JsonNode node) {
        if (deeperThan(node, dev.skiplock.JobRequest.MAX_NESTING)) {
            throw new IllegalArgumentException(field + ": nests arrays and objects deeper than "
                    + dev.skiplock.JobRequest.MAX_NESTING + " levels");
        }
    }

    /** Whether {@code node} nests arrays and objects more than {@code levels} deep (a scalar: 0). */
    public static boolean deeperThan(JsonNode node, int levels) {
        if (node == null || !node.isContainerNode()) {
            return false;
        }
        if (levels == 0) {
            return true;
        }
        for (JsonNode child : node) {
            if (deeperThan(child, levels - 1)) {
                return true;
            }
        }
        return false;
    }

    public static boolean isStorable(JsonNode node) {
        return node == null || !needsCleaning(node);
    }

    private static boolean needsCleaning(JsonNode node) {
        if (node.isTextual()) {
            return firstUnstorable(node.textValue()) >= 0;
        }
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (firstUnstorable(field.getKey()) >= 0 || needsCleaning(field.getValue())) {
                    return true;
                }
            }
        } else if (node.isArray()) {
            for (JsonNode element : node) {
                if (needsCleaning(element)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static JsonNode cleaned(JsonNode node) {
        if (node.isTextual()) {
            return TextNode.valueOf(of(node.textValue()));
        }
        if (node.isObject()) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            node.fields().forEachRemaining(field -> copy.set(of(field.getKey()), cleaned(field.getValue())));
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            node.forEach(element -> copy.add(cleaned(element)));
            return copy;
        }
        return node;
    }

    private static int firstUnstorable(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return i;
            }
            if (Character.isSurrogate(c)) {
                boolean pair = Character.isHighSurrogate(c) && i + 1 < text.length()
                        && Character.isLowSurrogate(text.charAt(i + 1));
                if (!pair) {
                    return i;
                }
                i++;
            }
        }
        return -1;
    }
}
