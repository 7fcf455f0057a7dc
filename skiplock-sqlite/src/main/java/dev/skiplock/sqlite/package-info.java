/** The SQLite driver: named SQL and migrations under {@code dev/skiplock/sqlite}. Found by ServiceLoader. */
package dev.skiplock.sqlite;
