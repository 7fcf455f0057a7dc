package dev.skiplock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The name rule {@code [A-Za-z0-9_.:-]{1,128}} (DESIGN §7), at its edges. */
class NamesTest {

    @Test
    void acceptsEveryAllowedCharacterUpTo128OfThem() {
        assertThat(Names.check("queue", "azAZ09_.:-")).isEqualTo("azAZ09_.:-");
        String longest = "q".repeat(128);
        assertThat(Names.check("queue", longest)).isSameAs(longest);
    }

    @Test
    void refusesAnythingElseNamingTheField() {
        for (String bad : new String[] {"", "q".repeat(129), "a b", "a/b", "a\n", "\na", "café", "٣", "a\u0000",
                "a*", "a@b", "é"}) {
            assertThatThrownBy(() -> Names.check("kind", bad)).as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("kind: must match");
        }
        assertThatThrownBy(() -> Names.check("tenant", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tenant: is required");
    }
}
