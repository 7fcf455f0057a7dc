/**
 * Spring Boot auto-configuration of Skiplock (API for Spring applications): a {@link dev.skiplock.Skiplock}
 * built from the application's {@code DataSource} and {@code skiplock.*} properties ({@link SkiplockProperties}),
 * handler beans ({@link SkiplockHandler}), enqueue in the current Spring transaction ({@link SkiplockJobs}),
 * Micrometer counters ({@link SkiplockMeterBinder}), a health indicator, and a worker that starts and stops
 * with the application context ({@link SkiplockLifecycle}). Works on Spring Boot 3.5 and 4.0; the core
 * depends on no Spring class.
 */
package dev.skiplock.spring;
