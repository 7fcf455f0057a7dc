package dev.skiplock.cli.bench;

/** The validated options of one benchmark run. */
record BenchSettings(String mode, int jobs, int batch, int rate, int concurrency, int history, int seconds,
        boolean holdSnapshot, int processes, Integer poolSize, boolean analyze) {
    // processes: 0 = the worker runs in the bench's own process (drain's default); 1 to 16 = that
    // many worker processes (ScaleOutBench). poolSize: each worker's pool, null = the driver's default.
    // analyze: drain analyzes the jobs table once the jobs are enqueued, as autovacuum has a live queue's.
}
