/**
 * CLI commands that talk to a running server over HTTP ({@code submit}, {@code status}, {@code logs},
 * {@code cancel}, ...): {@code ApiClient} plus one class per command, exit codes as in docs/API.md.
 * Not a library API.
 */
package dev.skiplock.cli.client;
