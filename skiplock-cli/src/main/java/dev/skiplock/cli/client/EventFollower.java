package dev.skiplock.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.JobStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Follows a job's events over the API's server-sent events ({@code GET /api/v1/jobs/{id}/events/stream})
 * until the server ends the stream, after the job's terminal status. The server sends a keep-alive
 * comment every 15 s while the job is quiet, so a connection silent for {@code idle} is taken as
 * lost (a host gone without a word, a network cut), as is one cut (a proxy's idle timeout, a
 * restart): the stream is opened again after the last event received ({@code Last-Event-ID}), so
 * no event is missed or printed twice. A stream that ends without the terminal status ends the
 * follow only if the job has ended. The follow fails (exit 3) when the server cannot be reached
 * again (asked four times over 15 s), or when {@link #MAX_FRUITLESS} openings in a row bring nothing
 * (no event, no keep-alive).
 */
final class EventFollower {
    /** Four of the server's keep-alive intervals. */
    static final Duration IDLE = Duration.ofSeconds(60);
    private static final Duration HEADERS = Duration.ofSeconds(30);
    private static final int MAX_FRUITLESS = 5;
    private static final Object END = new Object();

    private final ApiClient client;
    private final Duration idle;

    EventFollower(ApiClient client, Duration idle) {
        this.client = client;
        this.idle = idle;
    }

    /** Hands each event to {@code onEvent} in order until it returns true or the stream ends. */
    void follow(String id, Predicate<JsonNode> onEvent) {
        long last = 0;
        int fruitless = 0;
        String lost = null;
        while (true) {
            if (fruitless == MAX_FRUITLESS) {
                throw new CliFailure(3, "lost the connection to " + client.base() + ": " + lost);
            }
            Connection connection = new Connection(open(id, last));
            try {
                Read read = connection.read(last, onEvent);
                if (read.done() || read.ended() && ended(id)) {
                    return;
                }
                fruitless = read.heard() ? 0 : fruitless + 1;
                last = read.last();
                lost = read.lost();
            } finally {
                connection.abandon();
            }
        }
    }

    /**
     * The stream after event {@code last}; a server that cannot be reached is asked again, after
     * 1, 2, 4 and 8 s (a restart: the stream was cut, and the server is not listening yet), before
     * the follow fails (exit 3).
     */
    private HttpResponse<InputStream> open(String id, long last) {
        long pauseMillis = 1000;
        while (true) {
            try {
                return client.openEvents("/api/v1/jobs/" + id + "/events/stream", last, HEADERS);
            } catch (CliFailure unreachable) {
                if (unreachable.exitCode() != 3 || last == 0 || pauseMillis > 8000) {
                    throw unreachable;
                }
            }
            try {
                Thread.sleep(pauseMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliFailure(3, "interrupted");
            }
            pauseMillis *= 2;
        }
    }

    /**
     * Whether the job has ended, asked of the server when a stream ended without its terminal
     * status: one resumed past a finished job's end ends at once, as does a cut that looks clean (a
     * proxy's), and only the job's status tells them apart.
     */
    private boolean ended(String id) {
        JsonNode job = client.get("/api/v1/jobs/" + id);
        return job != null && JobStatus.fromWireName(job.path("status").asText()).isTerminal();
    }

    /**
     * What one connection brought: whether the follow is done, how many events, the last one's
     * seq, and why it was lost when it was.
     */
    private record Read(boolean done, boolean ended, boolean heard, long last, String lost) {
    }

    /** One stream, read on a thread of its own so that its silence can be timed. */
    private final class Connection {
        private final InputStream body;
        private final BlockingQueue<Object> items = new ArrayBlockingQueue<>(1024);
        private final Thread reader;

        Connection(HttpResponse<InputStream> response) {
            body = response.body();
            reader = Thread.ofPlatform().daemon().name("skiplock-follow").start(this::readLines);
        }

        private void readLines() {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    items.put(line);
                }
                items.put(END);
            } catch (IOException e) {
                items.offer(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // abandoned
            }
        }

        Read read(long after, Predicate<JsonNode> onEvent) {
            long last = after;
            boolean heard = false; // an event, or a keep-alive: the server answers
            boolean terminal = false;
            Long seq = null;
            String data = null;
            while (true) {
                Object item;
                try {
                    item = items.poll(idle.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CliFailure(3, "interrupted");
                }
                if (item == null) {
                    return new Read(false, false, heard, last, "no word for " + idle.toSeconds() + " s");
                }
                if (item == END) {
                    // the server ends a stream after the terminal status, or at once when resumed past
                    // a finished job's end; one that ended otherwise (a proxy's) is opened again
                    return new Read(terminal, !terminal, heard, last, "the stream ended early");
                }
                if (item instanceof IOException e) {
                    return new Read(false, false, heard, last, String.valueOf(e.getMessage()));
                }
                String line = (String) item;
                heard = true;
                if (line.isEmpty()) {
                    if (data != null) {
                        JsonNode event = client.answer(200, data);
                        last = seq != null ? seq : last;
                        if (event.path("type").asText().equals("status")) {
                            terminal = JobStatus.fromWireName(event.path("status").asText()).isTerminal();
                        }
                        if (onEvent.test(event)) {
                            return new Read(true, false, heard, last, null);
                        }
                    }
                    seq = null;
                    data = null;
                } else if (line.startsWith("id:")) {
                    seq = Long.parseLong(line.substring(3).strip());
                } else if (line.startsWith("data:")) {
                    data = line.substring(5).strip();
                } else if (line.startsWith("{")) {
                    // the server failed after it sent its status (a database failure at a later page):
                    // its error comes as the stream's last line, as in the API's other streams
                    JsonNode error = client.answer(200, line).path("error");
                    client.fail(error.path("code").asText().equals("unavailable") ? 503 : 500,
                            client.answer(200, line));
                }
                // a comment (": keep-alive") or an event name: nothing to do
            }
        }

        /** Leaves the stream: its reader may stay blocked on a silent socket until the process ends. */
        void abandon() {
            reader.interrupt();
            try {
                body.close();
            } catch (IOException | RuntimeException e) {
                // leaving it anyway
            }
        }
    }
}
