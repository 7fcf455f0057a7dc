package dev.skiplock.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skiplock.Job;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The one column list matches {@link Job}, and a COPY statement that misses a column (or the first
 * event's seq) fails at start.
 */
class JobColumnsTest {

    @Test
    void thereIsOneColumnPerJobComponentInTheSameOrder() {
        assertThat(JobColumns.all()).extracting(JobColumns.Column::name).containsExactlyElementsOf(
                Arrays.stream(Job.class.getRecordComponents()).map(RecordComponent::getName)
                        .map(JobColumnsTest::snakeCase).toList());
    }

    @Test
    void aCopyStatementMustNameEveryRequestColumn() {
        assertThatThrownBy(() -> BulkJobInserter.copyColumnNames(
                "COPY skiplock_jobs (id, tenant, queue, kind, args, metadata, priority, status, max_attempts, "
                        + "available_at, requested_at, timeout_seconds, unique_key, depends_on, last_error) FROM STDIN"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("[traceparent, requested_seq]");
        assertThatThrownBy(() -> BulkJobInserter.copyColumnNames("COPY skiplock_jobs (id, no_such_column) FROM STDIN"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no_such_column");
    }

    @Test
    void aCopyStatementNamingEveryRequestColumnGivesThemInItsOrder() {
        assertThat(BulkJobInserter.copyColumnNames("COPY skiplock_jobs (requested_at, id, tenant, queue, kind, args, "
                + "metadata, traceparent, priority, status, max_attempts, available_at, timeout_seconds, unique_key, "
                + "depends_on, last_error, requested_seq) FROM STDIN"))
                .startsWith("requested_at", "id", "tenant").endsWith("last_error", "requested_seq");
    }

    private static String snakeCase(String camel) {
        return camel.replaceAll("([A-Z])", "_$1").toLowerCase();
    }
}
