package dev.skiplock.internal.store;

/**
 * A list bound as one array parameter where the dialect takes arrays
 * ({@link dev.skiplock.spi.Dialect#takesArrays}): the dialect binds {@code elements}, a Java array
 * typed by its elements, as an array of {@code elementType}, the database's name of the element
 * type ({@link dev.skiplock.spi.Dialect#setArray}). Elements may be null.
 */
record SqlArray(String elementType, Object[] elements) {
}
