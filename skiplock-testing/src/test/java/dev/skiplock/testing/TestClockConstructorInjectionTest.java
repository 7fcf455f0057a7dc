package dev.skiplock.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The TestClock injected into a constructor (one instance per test) is the test's own: the one its
 * test method gets, and new for each test; so is a database of scope TEST. Before, it was the class's clock: the first test moved
 * it a day ahead for the second, and advancing the test's own clock did not move it (retention and
 * testing reviewer).
 */
@SkiplockTest(database = SkiplockTest.Database.SQLITE, scope = SkiplockTest.Scope.TEST)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TestClockConstructorInjectionTest {
    private final Instant constructedAt = Instant.now();
    private final TestClock given;
    private final SkiplockTestDatabase givenDatabase;

    TestClockConstructorInjectionTest(TestClock clock, SkiplockTestDatabase database) {
        given = clock;
        givenDatabase = database;
    }

    @Test
    @Order(1)
    void theTestGetsTheClockItsConstructorGotAndMovesIt(TestClock clock, SkiplockTestDatabase database) {
        assertThat(clock).isSameAs(given);
        assertThat(database).as("its database of scope TEST too").isSameAs(givenDatabase);
        clock.advance(Duration.ofDays(1));
    }

    @Test
    @Order(2)
    void theNextTestsConstructorGetsAClockOfItsOwn() {
        assertThat(given.instant()).as("not moved by the test before").isBefore(constructedAt.plus(Duration.ofHours(1)));
    }
}
