/** The PostgreSQL driver: named SQL and migrations under {@code dev/skiplock/postgres}. Found by ServiceLoader. */
package dev.skiplock.postgres;
