package dev.skiplock.cli.bench;

/** The validated options of one benchmark run. */
record BenchSettings(String mode, int jobs, int batch, int rate, int concurrency, int history, int seconds,
        boolean holdSnapshot) {
}
