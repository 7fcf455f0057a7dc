package dev.skiplock.internal.store;

import dev.skiplock.spi.Driver;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/** Queue state ({@code queues.sql}): which queues are paused. Claims skip paused queues in SQL. */
public final class QueueStore {
    public static final List<String> STATEMENTS = List.of("set_paused", "list_paused");

    private final SqlRunner sql;

    public QueueStore(DataSource dataSource, Driver driver) {
        this.sql = SqlRunner.forTable(dataSource, driver, "queues");
    }

    public void setPaused(String queue, boolean paused) {
        sql.update("set_paused", Params.of("queue", queue, "paused", paused));
    }

    public Set<String> listPaused() {
        return new HashSet<>(sql.query("list_paused", Params.of(), row -> row.getString("queue")));
    }
}
