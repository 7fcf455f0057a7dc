/**
 * Driver seam: what a database module implements so the engine can run on it ({@link dev.skiplock.spi.Driver},
 * {@link dev.skiplock.spi.Dialect}, {@link dev.skiplock.spi.Notifier}, {@link dev.skiplock.spi.BulkCopy}). Public for drivers only; not a stable API.
 */
package dev.skiplock.spi;
