package dev.skiplock.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.skiplock.Job;
import dev.skiplock.JobClient;
import dev.skiplock.JobPage;
import dev.skiplock.JobQuery;
import dev.skiplock.JobStatus;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Assertions on enqueued jobs, by kind and by what their args hold, for any test framework (they
 * throw {@link AssertionError}). Through a {@link JobClient}: durable jobs of its tenant, in any
 * status (a job that already ran was enqueued too). Through a {@link Connection}: the jobs that
 * connection's open transaction enqueued, before it commits.
 */
public final class SkiplockAssertions {
    private static final ObjectMapper JSON = new ObjectMapper().findAndRegisterModules()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private SkiplockAssertions() {
    }

    /** The jobs of {@code kind} whose args match, newest first (every page of {@link JobClient#list}). */
    public static List<Job> enqueued(JobClient client, String kind, Predicate<JsonNode> args) {
        List<Job> matching = new ArrayList<>();
        JobQuery query = JobQuery.all().withKind(kind).withLimit(JobQuery.MAX_LIMIT);
        while (true) {
            JobPage page = client.list(query);
            page.jobs().stream().filter(job -> args.test(job.args())).forEach(matching::add);
            if (page.nextCursor() == null) {
                return matching;
            }
            query = query.withCursor(page.nextCursor());
        }
    }

    /**
     * Asserts that exactly one job of {@code kind} whose args match was enqueued; returns it.
     * E.g. {@code assertEnqueued(client, "email.send", args -> args.get("to").asText().equals("ada@example.com"))}.
     */
    public static Job assertEnqueued(JobClient client, String kind, Predicate<JsonNode> args) {
        return exactlyOne(enqueued(client, kind, args), kind, "enqueued");
    }

    /** As {@link #assertEnqueued(JobClient, String, Predicate)}, matching the args read as {@code argsType}. */
    public static <A> Job assertEnqueued(JobClient client, String kind, Class<A> argsType, Predicate<A> args) {
        return assertEnqueued(client, kind, typed(argsType, args));
    }

    /** Asserts that no job of {@code kind} whose args match was enqueued. */
    public static void assertNotEnqueued(JobClient client, String kind, Predicate<JsonNode> args) {
        none(enqueued(client, kind, args), kind, "enqueued");
    }

    /**
     * Asserts that the open transaction of {@code connection} enqueued exactly one job of
     * {@code kind} whose args match (it is not committed yet: other connections do not see it);
     * returns it as read there: its id, tenant, queue, kind, args, metadata, priority, status,
     * attempt, maxAttempts, availableAt and uniqueKey (the other components are not read). Reads
     * {@code skiplock_jobs} through the connection (PostgreSQL: rows whose {@code xmin} is the
     * transaction's, so not those written under a savepoint; SQLite: rows it sees that a new
     * connection to the same file does not). The connection is left as it was.
     */
    public static Job assertEnqueued(Connection connection, String kind, Predicate<JsonNode> args) {
        return exactlyOne(inTransaction(connection, kind, args), kind, "enqueued in this transaction");
    }

    /** Asserts that the open transaction of {@code connection} enqueued no job of {@code kind} whose args match. */
    public static void assertNotEnqueued(Connection connection, String kind, Predicate<JsonNode> args) {
        none(inTransaction(connection, kind, args), kind, "enqueued in this transaction");
    }

    /** A predicate on args as JSON that reads them as {@code argsType} first (a mismatch: no match). */
    public static <A> Predicate<JsonNode> typed(Class<A> argsType, Predicate<A> args) {
        return json -> {
            try {
                return args.test(JSON.treeToValue(json, argsType));
            } catch (JsonProcessingException | IllegalArgumentException e) {
                return false;
            }
        };
    }

    private static List<Job> inTransaction(Connection connection, String kind, Predicate<JsonNode> args) {
        try {
            TestSql sql = TestSql.of(connection);
            String statement = sql.isPostgres() ? "jobs_of_this_transaction" : "jobs_seen_here";
            List<Job> jobs = sql.query(connection, statement, Map.of("kind", kind), row -> Job.builder()
                    .id(sql.id(row, "id")).tenant(row.getString("tenant")).queue(row.getString("queue"))
                    .kind(row.getString("kind")).args(json(row.getString("args")))
                    .metadata(json(row.getString("metadata"))).priority(row.getInt("priority"))
                    .status(JobStatus.fromWireName(row.getString("status"))).attempt(row.getInt("attempt"))
                    .maxAttempts(row.getInt("max_attempts")).availableAt(sql.instant(row, "available_at"))
                    .uniqueKey(row.getString("unique_key")).build());
            if (!sql.isPostgres()) {
                Set<UUID> committed = committed(sql, connection, kind);
                jobs.removeIf(job -> committed.contains(job.id()));
            }
            return jobs.stream().filter(job -> args.test(job.args())).toList();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the jobs of this transaction: " + e.getMessage(), e);
        }
    }

    /** SQLite: the jobs of {@code kind} a new connection to the same file sees (committed ones). */
    private static Set<UUID> committed(TestSql sql, Connection connection, String kind) throws SQLException {
        try (Connection outside = DriverManager.getConnection(connection.getMetaData().getURL())) {
            return new HashSet<>(sql.query(outside, "jobs_seen_here", Map.of("kind", kind), row -> sql.id(row, "id")));
        }
    }

    private static JsonNode json(String text) {
        try {
            return text == null ? null : JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a job's JSON does not parse: " + e.getMessage(), e);
        }
    }

    private static Job exactlyOne(List<Job> matching, String kind, String how) {
        if (matching.size() != 1) {
            throw new AssertionError("expected one job of kind " + kind + " with matching args " + how + ", found "
                    + matching.size() + describe(matching));
        }
        return matching.getFirst();
    }

    private static void none(List<Job> matching, String kind, String how) {
        if (!matching.isEmpty()) {
            throw new AssertionError("expected no job of kind " + kind + " with matching args " + how + ", found "
                    + matching.size() + describe(matching));
        }
    }

    private static String describe(List<Job> jobs) {
        return jobs.isEmpty() ? "" : jobs.stream().limit(5)
                .map(job -> job.id() + " " + job.status().wireName() + " " + job.args())
                .collect(Collectors.joining("; ", ": ", jobs.size() > 5 ? "; …" : ""));
    }
}
