package dev.skiplock.internal.store;

import dev.skiplock.spi.Driver;
import javax.sql.DataSource;

/** Every table's store on one data source and driver. */
public record Stores(JobStore jobs, EventStore events, QueueStore queues, WorkerStore workers, CronStore cron,
        StepStore steps, SignalStore signals) {
    public static Stores open(DataSource dataSource, Driver driver) {
        JobStore jobs = new JobStore(dataSource, driver);
        return new Stores(jobs, new EventStore(dataSource, driver), new QueueStore(dataSource, driver),
                new WorkerStore(dataSource, driver), new CronStore(dataSource, driver, jobs),
                new StepStore(dataSource, driver), new SignalStore(dataSource, driver));
    }
}
