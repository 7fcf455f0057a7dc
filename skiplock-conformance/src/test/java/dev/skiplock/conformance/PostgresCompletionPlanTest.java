package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.JobRequest;
import dev.skiplock.Skiplock;
import dev.skiplock.internal.sql.NamedStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's complete_jobs takes a batch of outcomes as arrays, whose length a generic plan does
 * not know (it expects 10 elements). Its plan must not compare every outcome with every locked row:
 * joined to the batch again after locking, a generic plan did so by a nested loop, and a drain of
 * 50,000 jobs ran at half the rate.
 */
class PostgresCompletionPlanTest extends ContractBase {
    private static final int BATCH = 200;
    /** Jobs in the table, with statistics: the planner then locks and updates each row through its key. */
    private static final int QUEUED = 10_000;
    private static final Pattern REMOVED_BY_JOIN_FILTER = Pattern.compile("Rows Removed by Join Filter: (\\d+)");

    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }

    record Work(int n) {
    }

    /**
     * A batch of 200 successes under the generic plan, its executed plan read back through
     * auto_explain: every outcome applied, and no row compared with an outcome it does not match.
     */
    @Test
    void aBatchUnderTheGenericPlanComparesNoOutcomeWithAnotherJobsRow() throws Exception {
        Skiplock producer = client();
        for (int from = 0; from < QUEUED; from += BATCH) {
            List<JobRequest> requests = new ArrayList<>();
            for (int i = from; i < from + BATCH; i++) {
                requests.add(JobRequest.of("work", new Work(i)));
            }
            producer.enqueueMany(requests);
        }
        List<UUID> ids = new ArrayList<>();
        List<UUID> tokens = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(database.url())) {
            try (Statement analyze = connection.createStatement()) {
                analyze.execute("ANALYZE skiplock_jobs");
            }
            try (PreparedStatement claim = PostgresClaimCall.prepare(connection, PostgresClaimCall.statement(producer),
                    null, BATCH); ResultSet rows = claim.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getObject("id", UUID.class));
                    tokens.add(rows.getObject("lease_token", UUID.class));
                }
            }
            assertThat(ids).hasSize(BATCH);
            try (Statement settings = connection.createStatement()) {
                settings.execute("LOAD 'auto_explain'");
                settings.execute("SET auto_explain.log_min_duration = 0");
                settings.execute("SET auto_explain.log_analyze = on");
                settings.execute("SET auto_explain.log_level = notice"); // to this client, as a warning
                settings.execute("SET plan_cache_mode = force_generic_plan");
                // Which join a generic plan picks turns on small differences of cost (a drain's table
                // got the nested loop, this test's a hash join): without hash and merge joins, a join
                // of the batch to rows other than through their key shows as rows a join filter dropped.
                settings.execute("SET enable_hashjoin = off");
                settings.execute("SET enable_mergejoin = off");
            }
            String plan;
            int applied = 0;
            try (PreparedStatement complete = PostgresCompleteCall.prepare(connection,
                    PostgresCompleteCall.statement(producer), ids, tokens); ResultSet rows = complete.executeQuery()) {
                while (rows.next()) {
                    applied++;
                }
                plan = notices(complete);
            }
            assertThat(applied).as("outcomes applied").isEqualTo(BATCH);
            assertThat(plan).as("the executed plan").contains("Update on skiplock_jobs");
            Matcher removed = REMOVED_BY_JOIN_FILTER.matcher(plan);
            while (removed.find()) {
                assertThat(Long.parseLong(removed.group(1))).as("rows a join compared and dropped, in\n%s", plan)
                        .isZero();
            }
        }
    }

    /** The notices the statement's execution sent, one after the other. */
    private static String notices(Statement statement) throws Exception {
        StringBuilder text = new StringBuilder();
        for (SQLWarning warning = statement.getWarnings(); warning != null; warning = warning.getNextWarning()) {
            text.append(warning.getMessage()).append('\n');
        }
        return text.toString();
    }
}
