/**
 * Every statement the engine and the client run, one method per {@code -- name:} of a driver's
 * {@code sql/<table>.sql} ({@code JobStore}, {@code EventStore}, {@code QueueStore},
 * {@code WorkerStore}, {@code CronStore}), the job's columns declared once ({@code JobColumns}:
 * the row mapper {@code JobRows}, the insert JSON and the COPY rows derive from it), the COPY path
 * ({@code BulkJobInserter}) and the {@code Migrator}. The only place that touches JDBC. Not API.
 */
package dev.skiplock.internal.store;
