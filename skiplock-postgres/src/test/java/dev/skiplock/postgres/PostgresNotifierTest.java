package dev.skiplock.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.spi.Notifier;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** How notification payloads reach the engine: one call per queue, cancel and announced job. */
class PostgresNotifierTest {
    private final List<String> calls = new ArrayList<>();
    private boolean followed = true;
    private final Notifier.Listener listener = new Notifier.Listener() {
        @Override
        public void queueReady(String queue) {
            calls.add("queue " + queue);
        }

        @Override
        public void orphansReaped(String queue) {
            calls.add("orphans " + queue);
        }

        @Override
        public void cancelRequested(UUID jobId) {
            calls.add("cancel " + jobId);
        }

        @Override
        public void eventsAppended(UUID jobId) {
            calls.add("events " + jobId);
        }

        @Override
        public void resync() {
            calls.add("resync");
        }

        @Override
        public boolean followsEvents() {
            return followed;
        }
    };

    @Test
    void appendedEventsNobodyFollowsAreNotPassedOn() {
        UUID job = UUID.randomUUID();
        followed = false;

        PostgresNotifier.dispatch("e:" + job + ",not-a-uuid", listener);
        PostgresNotifier.dispatch("q:emails", listener);
        followed = true;
        PostgresNotifier.dispatch("e:" + job, listener);

        assertThat(calls).containsExactly("queue emails", "events " + job);
    }

    @Test
    void aCompletionBatchAnnouncesEachOfItsJobs() {
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();

        PostgresNotifier.dispatch("e:" + first + "," + second, listener);
        PostgresNotifier.dispatch("e:" + first, listener);

        assertThat(calls).containsExactly("events " + first, "events " + second, "events " + first);
    }

    @Test
    void queuesOrphansAndCancelsAreDispatchedAndMalformedPayloadsIgnored() {
        UUID job = UUID.randomUUID();

        PostgresNotifier.dispatch("q:emails", listener);
        PostgresNotifier.dispatch("o:emails", listener);
        PostgresNotifier.dispatch("c:" + job, listener);
        PostgresNotifier.dispatch("c:not-a-uuid", listener);
        PostgresNotifier.dispatch("x", listener);

        assertThat(calls).containsExactly("queue emails", "orphans emails", "cancel " + job);
    }
}
