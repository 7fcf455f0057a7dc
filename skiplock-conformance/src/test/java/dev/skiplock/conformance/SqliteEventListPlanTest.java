package dev.skiplock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.Job;
import dev.skiplock.JobOutcome;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * list_events reads a job's events as a compound select in seq order, each part along its index, so
 * a page stops at its limit. Through the view skiplock_job_event_log, SQLite sorted every event of
 * the job after the cursor first (a job of 100,000 log lines: 108 ms a page of 1,000, paging through
 * it O(N^2/1,000) rows read). EventsContract holds both databases to what it lists.
 */
class SqliteEventListPlanTest extends ContractBase {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }

    record Work(int n) {
    }

    /**
     * list_events spells out the view skiplock_job_event_log (migration 0018), which the tests of
     * SQLite's bookkeeping read: both list the same events of a job that failed once, logged, and
     * succeeded (rows, and events read from the job row), every column.
     */
    @Test
    void theListAndTheViewHoldTheSameEvents() {
        Skiplock worker = started(builder(config -> config.queue("default", 1))
                .handler("flaky", Work.class, context -> {
                    context.log("stdout", "attempt " + context.attempt());
                    if (context.attempt() == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    return JobOutcome.complete();
                }));
        Job job = worker.enqueue(JobRequest.of("flaky", new Work(0)).withMaxAttempts(2));
        awaitStatus(worker, job.id(), JobStatus.SUCCEEDED);

        List<String> listed = worker.events(job.id(), 0, 1000).stream()
                .map(event -> String.join("|", String.valueOf(event.seq()), String.valueOf(event.ts().toEpochMilli()),
                        event.jobId().toString(), String.valueOf(event.attempt()), event.type(), event.status(),
                        event.step(), event.stream(), event.message(), event.data() == null ? null : event.data().toString()))
                .toList();
        List<String> inTheView = Jdbc.query(worker.dataSource(), "SELECT seq, ts, job_id, attempt, type, status, step,"
                + " stream, message, data FROM skiplock_job_event_log WHERE job_id = '" + job.id() + "' ORDER BY seq",
                row -> String.join("|", String.valueOf(row.getLong("seq")), String.valueOf(row.getLong("ts")),
                        row.getString("job_id"), String.valueOf(row.getInt("attempt")), row.getString("type"),
                        row.getString("status"), row.getString("step"), row.getString("stream"), row.getString("message"),
                        row.getString("data")));
        assertThat(listed).hasSize(7).isEqualTo(inTheView);
    }

    @Test
    void aPageOfEventsIsReadInSeqOrderWithoutASort() throws Exception {
        List<String> plan = SqlitePlan.of(client(), "events", "list_events", (explain, index, name, driver) -> {
            switch (name) {
                case "tenant" -> explain.setString(index, "default");
                case "job_id" -> driver.dialect().setUuid(explain, index, UUID.randomUUID());
                case "after_seq" -> explain.setLong(index, 0);
                case "limit" -> explain.setInt(index, 1000);
                default -> throw new IllegalStateException("list_events has a new parameter: " + name);
            }
        });
        assertThat(plan).as("the plan").anySatisfy(step -> assertThat(step).startsWith("MERGE (UNION ALL)"));
        assertThat(plan).as("the plan").anySatisfy(step -> assertThat(step)
                .isEqualTo("SEARCH skiplock_job_events USING INDEX skiplock_job_events_job (job_id=? AND seq>?)"));
        assertThat(plan).as("the plan").noneSatisfy(step -> assertThat(step).contains("TEMP B-TREE"));
    }
}
