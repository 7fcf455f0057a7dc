/** The {@code skiplock} command line: one class per command (picocli). Not a library API. */
package dev.skiplock.cli;
