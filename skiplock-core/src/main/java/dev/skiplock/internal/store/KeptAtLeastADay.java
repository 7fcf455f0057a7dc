package dev.skiplock.internal.store;

import java.time.Duration;

/**
 * How long retention keeps the records that must outlive a short retention: cron slot markers (a
 * scheduler whose clock is behind must not come to a slot after its marker is gone) and the rows of
 * workers stopped or silent (far above any heartbeat interval, so no running worker's row goes
 * between two heartbeats, and long enough for an operator to see a crashed worker as stale).
 */
public final class KeptAtLeastADay {
    public static final Duration MIN = Duration.ofDays(1);

    private KeptAtLeastADay() {
    }

    /** The retention, but never less than {@link #MIN}. */
    public static Duration under(Duration retention) {
        return retention.compareTo(MIN) > 0 ? retention : MIN;
    }
}
