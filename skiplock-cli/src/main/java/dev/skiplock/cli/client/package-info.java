/**
 * CLI commands that talk to a running server over HTTP ({@code submit}, {@code status}, {@code logs},
 * {@code cancel}, {@code workers}, {@code top}, ...): {@code ApiClient} plus one class per command, exit
 * codes as in docs/API.md; live terminal output ({@code StatusLine}, {@code TopFrame}) only on an
 * interactive terminal, plain text otherwise. Not a library API.
 */
package dev.skiplock.cli.client;
