package dev.skiplock.conformance;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The system clock, for a worker's configuration, that runs the test's action whenever it is read
 * within a given method of the engine (its class in {@code dev.skiplock.internal.engine}): what
 * the action throws, that read throws. Lets a test reach a step of the engine that reads the clock
 * and runs no statement (a timeout's check, a job's start, a lost claim's give-back).
 */
final class ReadByEngineClock extends Clock {
    /** The test's action. */
    interface Action {
        void run();
    }

    private final String className;
    private final String method;
    private final Action action;

    ReadByEngineClock(String type, String method, Action action) {
        this.className = "dev.skiplock.internal.engine." + type;
        this.method = method;
        this.action = action;
    }

    @Override
    public Instant instant() {
        if (StackWalker.getInstance().walk(frames -> frames.anyMatch(frame ->
                frame.getClassName().equals(className) && frame.getMethodName().equals(method)))) {
            action.run();
        }
        return Instant.now();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
    }
}
