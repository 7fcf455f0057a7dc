package dev.skiplock.internal.store;

import dev.skiplock.spi.Driver;
import javax.sql.DataSource;

/** Every table's store on one data source and driver. */
public record Stores(JobStore jobs, EventStore events, QueueStore queues, WorkerStore workers) {
    public static Stores open(DataSource dataSource, Driver driver) {
        return new Stores(new JobStore(dataSource, driver), new EventStore(dataSource, driver),
                new QueueStore(dataSource, driver), new WorkerStore(dataSource, driver));
    }
}
