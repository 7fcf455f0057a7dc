package dev.skiplock.spring;

import dev.skiplock.Skiplock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the health indicators of both Boot lines report: up when the database answers, its schema
 * is current and, if this application runs queues, the worker is started. Details: {@code database}
 * (the driver), {@code pendingMigrations}, {@code worker} ({@code started}, {@code stopped} or
 * {@code none} without queues), {@code queues}. An unreachable database throws (the indicator
 * reports it down with the error).
 */
final class SkiplockHealth {
    private final Skiplock skiplock;
    private final SkiplockLifecycle lifecycle;

    SkiplockHealth(Skiplock skiplock, SkiplockLifecycle lifecycle) {
        this.skiplock = skiplock;
        this.lifecycle = lifecycle;
    }

    record Report(boolean up, Map<String, Object> details) {
    }

    Report check() {
        List<String> pending = skiplock.pendingMigrations();
        boolean hasQueues = !skiplock.config().queues().isEmpty();
        String worker = !hasQueues ? "none" : lifecycle.isRunning() ? "started" : "stopped";
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("database", skiplock.driverName());
        details.put("pendingMigrations", pending);
        details.put("worker", worker);
        details.put("queues", skiplock.config().queues());
        return new Report(pending.isEmpty() && !worker.equals("stopped"), details);
    }
}
