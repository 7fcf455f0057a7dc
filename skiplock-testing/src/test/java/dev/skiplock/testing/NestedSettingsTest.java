package dev.skiplock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A {@code @Nested} class takes the settings of the {@code @SkiplockTest} around it (before, it fell
 * back to the defaults: PostgreSQL, one database per class, and its tests saw each other's jobs).
 */
@SkiplockTest(database = SkiplockTest.Database.SQLITE, scope = SkiplockTest.Scope.TEST)
class NestedSettingsTest {
    @Test
    void theOuterClassHasItsSettings(SkiplockTestDatabase database) {
        assertThat(database.database()).isEqualTo(SkiplockTest.Database.SQLITE);
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Inner {
        private final Set<String> urls = ConcurrentHashMap.newKeySet();

        @Test
        void aNestedTestHasTheOuterSettings(SkiplockTestDatabase database) {
            assertThat(database.database()).isEqualTo(SkiplockTest.Database.SQLITE);
            urls.add(database.url());
        }

        @Test
        void anotherNestedTestGetsADatabaseOfItsOwn(SkiplockTestDatabase database) {
            assertThat(database.database()).isEqualTo(SkiplockTest.Database.SQLITE);
            urls.add(database.url());
        }

        @AfterAll
        void eachTestHadItsOwnDatabase() {
            assertThat(urls).hasSize(2);
        }
    }
}
