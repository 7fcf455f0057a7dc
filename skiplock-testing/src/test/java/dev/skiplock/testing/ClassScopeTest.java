package dev.skiplock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skiplock.JobRequest;
import dev.skiplock.SkiplockClient;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code @ExtendWith} alone: PostgreSQL, one database for the class, injected into the constructor too. */
@ExtendWith(SkiplockExtension.class)
class ClassScopeTest {
    private static final Set<String> URLS = ConcurrentHashMap.newKeySet();
    private final SkiplockTestDatabase database;

    ClassScopeTest(SkiplockTestDatabase database) {
        this.database = database;
    }

    @Test
    void aTestSeesTheClassDatabase(SkiplockClient client) {
        check(client);
    }

    @Test
    void anotherTestSeesTheSameDatabase(SkiplockClient client) {
        check(client);
    }

    private void check(SkiplockClient client) {
        assertThat(database.database()).isEqualTo(SkiplockTest.Database.POSTGRES);
        URLS.add(database.url());
        assertThat(client.enqueue(JobRequest.of("noop", null)).id()).isNotNull();
    }

    @AfterAll
    static void bothTestsUsedOneDatabase() {
        assertThat(URLS).hasSize(1);
    }
}
