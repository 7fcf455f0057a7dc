package dev.skiplock.internal.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.skiplock.WorkerInfo;
import dev.skiplock.internal.Json;
import dev.skiplock.spi.Driver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** The worker registry ({@code workers.sql}). */
public final class WorkerStore {
    public static final List<String> STATEMENTS = List.of("register_worker", "touch_worker", "stop_worker",
            "list_workers", "count_workers", "prune_workers");

    private final SqlRunner sql;

    public WorkerStore(DataSource dataSource, Driver driver) {
        this.sql = SqlRunner.forTable(dataSource, driver, "workers");
    }

    /** Writes worker {@code id}'s row: who it is, what it serves, and how long its leases last. */
    public void registerWorker(String id, String host, long pid, List<String> queues, int concurrency, long leaseMillis) {
        sql.update("register_worker", Params.of("id", id, "host", host, "pid", pid,
                "queues", Json.write(queues), "concurrency", concurrency, "lease_ms", leaseMillis));
    }

    /** Records a heartbeat of worker {@code id}; false when its row is gone (pruned: register it again). */
    public boolean touchWorker(String id) {
        return sql.update("touch_worker", Params.of("id", id)) > 0;
    }

    /** Marks worker {@code id} stopped, unless its row now describes another host's or process's instance. */
    public void stopWorker(String id, String host, long pid) {
        sql.update("stop_worker", Params.of("id", id, "host", host, "pid", pid));
    }

    /**
     * Deletes up to {@code limit} rows of workers stopped or silent for longer than
     * {@link KeptAtLeastADay#under(Duration) KeptAtLeastADay.under(retention)}; returns how many.
     */
    public int pruneWorkers(Duration retention, int limit) {
        return sql.update("prune_workers", Params.of("age_ms", KeptAtLeastADay.under(retention).toMillis(), "limit", limit));
    }

    /** The registry's workers per status (active, stale, stopped; a status with none is missing), all of them. */
    public java.util.Map<String, Long> countWorkers(long heartbeatMillis) {
        java.util.Map<String, Long> counts = new java.util.LinkedHashMap<>();
        sql.query("count_workers", Params.of("heartbeat_ms", heartbeatMillis), row -> {
            counts.put(row.getString("status"), row.getLong("workers"));
            return 1;
        });
        return counts;
    }

    /** Active workers first, then stale, then stopped; newest first within each; at most 500. */
    public List<WorkerInfo> listWorkers(long heartbeatMillis) {
        return sql.query("list_workers", Params.of("heartbeat_ms", heartbeatMillis), row -> {
            List<String> queues = new ArrayList<>();
            JsonNode names = Json.read(row.getString("queues"));
            names.forEach(name -> queues.add(name.asText()));
            return new WorkerInfo(row.getString("id"), row.getString("host"), row.getLong("pid"), queues,
                    row.getInt("concurrency"), sql.dialect().getInstant(row, row.findColumn("started_at")),
                    sql.dialect().getInstant(row, row.findColumn("last_heartbeat_at")), row.getString("status"));
        });
    }
}
