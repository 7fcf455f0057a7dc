package dev.skiplock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class Uuid7Test {

    @Test
    void idsAreVersion7AndStrictlyIncreasingAsTextAndAsValues() {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            ids.add(Uuid7.next());
        }
        for (int i = 1; i < ids.size(); i++) {
            assertThat(ids.get(i).toString()).isGreaterThan(ids.get(i - 1).toString());
            assertThat(Long.compareUnsigned(ids.get(i).getMostSignificantBits(),
                    ids.get(i - 1).getMostSignificantBits())).isPositive();
        }
        assertThat(ids).allSatisfy(id -> {
            assertThat(id.version()).isEqualTo(7);
            assertThat(id.variant()).isEqualTo(2);
        });
    }

    @Test
    void timestampIsTheCurrentUnixMillisecond() {
        long before = System.currentTimeMillis();
        UUID id = Uuid7.next();
        long millis = id.getMostSignificantBits() >>> 16;
        assertThat(millis).isBetween(before, System.currentTimeMillis() + 1);
    }

    @Test
    void randomBitsDifferAcrossRefillsOfTheDrawnBits() {
        Set<Long> randomBits = new HashSet<>();
        for (int i = 0; i < 2_000; i++) { // about four refills of 512 ids' bits
            randomBits.add(Uuid7.next().getLeastSignificantBits());
        }
        assertThat(randomBits).hasSize(2_000); // 62 random bits: a repeat would mean bits used twice
    }

    @Test
    void floorIsBelowTheIdsOfItsMillisecondAndAboveThoseBefore() {
        UUID id = Uuid7.next();
        long millis = id.getMostSignificantBits() >>> 16;
        for (UUID floor : List.of(Uuid7.floor(millis), Uuid7.floor(millis + 1))) {
            boolean above = floor.equals(Uuid7.floor(millis + 1));
            // PostgreSQL orders uuids as unsigned bytes, SQLite as their text
            assertThat(Long.compareUnsigned(id.getMostSignificantBits(), floor.getMostSignificantBits()) < 0)
                    .isEqualTo(above);
            assertThat(id.toString().compareTo(floor.toString()) < 0).isEqualTo(above);
        }
        assertThat(Uuid7.floor(millis).toString()).startsWith(id.toString().substring(0, 13)).endsWith("-0000-0000-000000000000");
    }

    @Test
    void floorBeyondWhatAnIdHoldsIsTheLeastOrGreatestUuid() {
        assertThat(Uuid7.floor(-5).toString()).isEqualTo("00000000-0000-0000-0000-000000000000");
        assertThat(Uuid7.floor(Long.MAX_VALUE - 3).toString()).isEqualTo("ffffffff-ffff-ffff-ffff-ffffffffffff");
        assertThat(Uuid7.floor((1L << 48) - 1).toString()).isEqualTo("ffffffff-ffff-0000-0000-000000000000");
    }
}
