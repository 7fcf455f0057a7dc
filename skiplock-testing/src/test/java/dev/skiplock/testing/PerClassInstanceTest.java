package dev.skiplock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.JobRequest;
import dev.skiplock.SkiplockClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * With one test instance per class, JUnit builds the instance before the extension's
 * {@code beforeAll}: the class database is injected into its constructor all the same (before, the
 * constructor's parameter was refused, "no Skiplock test database").
 */
@SkiplockTest(database = SkiplockTest.Database.SQLITE)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PerClassInstanceTest {
    private final SkiplockTestDatabase database;

    PerClassInstanceTest(SkiplockTestDatabase database) {
        this.database = database;
    }

    @Test
    void theConstructorGotTheClassDatabase(SkiplockTestDatabase injected, SkiplockClient client) {
        assertThat(injected).isSameAs(database);
        assertThat(client.enqueue(JobRequest.of("noop", null)).id()).isNotNull();
    }
}
