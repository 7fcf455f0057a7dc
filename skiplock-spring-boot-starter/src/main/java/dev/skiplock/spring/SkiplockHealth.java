package dev.skiplock.spring;

import dev.skiplock.SchemaNewerException;
import dev.skiplock.Skiplock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the health indicators of both Boot lines report: up when the database answers, its schema
 * is current and, if this application runs queues, the worker is started. Details: {@code database}
 * (the driver), {@code pendingMigrations}, {@code worker} ({@code started}, {@code stopped} or
 * {@code none} without queues), {@code queues}. An unreachable database throws (the indicator
 * reports it down with the error). A schema a newer Skiplock migrated (a rolling upgrade whose new
 * processes migrated first) is up, with detail {@code schema} saying so: this process goes on, and
 * reporting it down had a platform pull or restart every old instance in the middle of the upgrade.
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
        List<String> pending;
        String newer = null;
        try {
            pending = skiplock.pendingMigrations();
        } catch (SchemaNewerException e) {
            pending = List.of();
            newer = e.getMessage();
        }
        boolean hasQueues = !skiplock.config().queues().isEmpty();
        String worker = !hasQueues ? "none" : lifecycle.isRunning() ? "started" : "stopped";
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("database", skiplock.driverName());
        details.put("pendingMigrations", pending);
        details.put("worker", worker);
        details.put("queues", skiplock.config().queues());
        if (newer != null) {
            details.put("schema", newer);
        }
        return new Report(pending.isEmpty() && !worker.equals("stopped"), details);
    }
}
