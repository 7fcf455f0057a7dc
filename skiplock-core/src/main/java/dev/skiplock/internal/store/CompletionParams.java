package dev.skiplock.internal.store;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.skiplock.internal.Json;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;

/**
 * A batch of outcomes as {@code complete_jobs} takes them: one array per field where the dialect
 * takes arrays (PostgreSQL), else a JSON array of objects ({@code :completions}); and a batch of
 * successes as SQLite's {@code complete_successes} takes them ({@link #successes}). All are written
 * straight from the outcomes: on the hot path, a JSON tree per outcome cost more than the write.
 */
final class CompletionParams {
    private CompletionParams() {
    }

    /** The parameters of complete_jobs for {@code completions}, in the form {@code arrays} says. */
    static Map<String, Object> of(Collection<Completion> completions, boolean arrays) {
        return arrays ? arrays(completions) : Params.of("completions", json(completions));
    }

    /**
     * Each array typed by its elements: pgjdbc sends a {@code String[]}, {@code Long[]} or
     * {@code Integer[]} in binary, and an {@code Object[]} as a text literal it builds from each
     * element's {@code toString()} (issue #12: the completion's arrays were a ninth of a drain's
     * allocations). The ids and tokens are the dialect's to bind ({@link dev.skiplock.spi.Dialect#setArray}).
     */
    private static Map<String, Object> arrays(Collection<Completion> completions) {
        int size = completions.size();
        UUID[] ids = new UUID[size];
        UUID[] tokens = new UUID[size];
        String[] statuses = new String[size];
        Long[] delays = new Long[size];
        String[] results = new String[size];
        String[] errors = new String[size];
        Integer[] extraAttempts = new Integer[size];
        int i = 0;
        for (Completion completion : completions) {
            ids[i] = completion.attempt().id();
            tokens[i] = completion.attempt().token();
            statuses[i] = completion.status().wireName();
            delays[i] = completion.delayMillis();
            results[i] = completion.result() == null ? null : Json.write(completion.result());
            errors[i] = completion.error();
            extraAttempts[i] = completion.extraAttempts();
            i++;
        }
        return Params.of("ids", new SqlArray("uuid", ids), "tokens", new SqlArray("uuid", tokens),
                "statuses", new SqlArray("text", statuses), "delays_ms", new SqlArray("int8", delays),
                "results", new SqlArray("text", results), "errors", new SqlArray("text", errors),
                "extra_attempts", new SqlArray("int4", extraAttempts));
    }

    /**
     * {@code successes} (without an error, an awaited signal or extra attempts) as SQLite's
     * {@code complete_successes} reads them: a JSON array of arrays, {@code [id, token, result]},
     * one per outcome. SQLite parses an element again for each field it reads, so an element holds
     * only what the statement reads, without keys: a hundred elements read in 0.17-0.23 ms, against
     * 0.41-0.70 in {@link #json}'s form.
     */
    static String successes(Collection<Completion> successes) {
        return array(successes, 90, (json, success) -> {
            json.writeStartArray();
            json.writeString(success.attempt().id().toString());
            json.writeString(success.attempt().token().toString());
            writeResult(json, success);
            json.writeEndArray();
        });
    }

    /** {@code completions} as a JSON array of objects, one per outcome. */
    static String json(Collection<Completion> completions) {
        return array(completions, 120, (json, completion) -> {
            json.writeStartObject();
            json.writeStringField("id", completion.attempt().id().toString());
            json.writeStringField("token", completion.attempt().token().toString());
            json.writeStringField("status", completion.status().wireName());
            json.writeNumberField("delay_ms", completion.delayMillis());
            json.writeFieldName("result");
            writeResult(json, completion);
            json.writeStringField("error", completion.error());
            json.writeNumberField("extra_attempts", completion.extraAttempts());
            json.writeEndObject();
        });
    }

    private static void writeResult(JsonGenerator json, Completion completion) throws IOException {
        if (completion.result() == null) {
            json.writeNull();
        } else {
            json.writeTree(completion.result());
        }
    }

    /** A JSON array of an element per completion, as {@code element} writes it (about {@code bytesEach} long). */
    private static String array(Collection<Completion> completions, int bytesEach, Element element) {
        StringWriter text = new StringWriter(completions.size() * bytesEach);
        try (JsonGenerator json = Json.MAPPER.getFactory().createGenerator(text)) {
            json.writeStartArray();
            for (Completion completion : completions) {
                element.write(json, completion);
            }
            json.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    @FunctionalInterface
    private interface Element {
        void write(JsonGenerator json, Completion completion) throws IOException;
    }
}
