package dev.skiplock.cli.bench;

import dev.skiplock.SkiplockConfig;
import dev.skiplock.spi.PoolSettings;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.cli.Main;
import dev.skiplock.cli.CliJson;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code skiplock bench MODE}: measures one thing on fresh tables and prints one JSON object as the
 * last line of stdout (API.md, "skiplock bench"). Progress goes to stderr ({@link BenchProgress}: live
 * on a terminal, plain lines in a pipe).
 */
@Command(name = "bench", description = "Benchmark: enqueue-single, enqueue-batch, drain, latency, steps or sustained; prints one JSON line.")
public final class BenchCommand implements Callable<Integer> {
    /**
     * Not a benchmark: one worker process of {@code drain --processes P}, on the tables its parent
     * made, until its stdin closes.
     */
    static final String DRAIN_WORKER = "drain-worker";

    @Parameters(index = "0", paramLabel = "MODE", description = "enqueue-single, enqueue-batch, drain, latency, steps or sustained")
    String mode;

    @ParentCommand
    Main cli;

    @Option(names = "--n", description = "jobs (default 20000; latency: 500); steps: checkpoints (default 2000)")
    Integer jobs;

    @Option(names = "--batch", defaultValue = "1000", description = "jobs per enqueue call (default ${DEFAULT-VALUE})")
    int batch;

    @Option(names = "--rate", defaultValue = "50", description = "latency, sustained: jobs per second (default ${DEFAULT-VALUE})")
    int rate;

    @Option(names = "--concurrency", defaultValue = "100",
            description = "worker concurrency for drain and latency (default ${DEFAULT-VALUE})")
    int concurrency;

    @Option(names = "--seconds", defaultValue = "60", description = "sustained: how long jobs are offered (default ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--hold-snapshot", description = "sustained: hold a REPEATABLE READ snapshot open the whole run (PostgreSQL)")
    boolean holdSnapshot;

    @Option(names = "--processes",
            description = "drain: worker processes sharing the drain, each with its own pool (given: even 1 runs in its own process)")
    Integer processes;

    @Option(names = "--pool-size", description = "drain, latency, sustained: connections in each worker's pool "
            + "(2 to 1000; default: the driver's, 11 on PostgreSQL, 4 on SQLite)")
    Integer poolSize;

    @Option(names = "--history", defaultValue = "0",
            description = "drain: finished jobs to leave in the table before the timed run (default 0)")
    int history;

    @Option(names = "--analyze", description = "drain: ANALYZE the jobs table once the jobs are enqueued, before the timed"
            + " run, as autovacuum keeps a live queue's statistics (default: fresh tables without statistics)")
    boolean analyze;

    @Override
    public Integer call() throws Exception {
        if (mode.equals(DRAIN_WORKER)) {
            return ScaleOutBench.serve(cli.options().jdbcUrl(), concurrency, poolSize);
        }
        BenchSettings settings = validate();
        ObjectNode result;
        try (BenchProgress progress = BenchProgress.open(cli.options().liveOnStderr());
                BenchDatabase fresh = new BenchDatabase(cli.options().jdbcUrl())) {
            BenchSupport.output = progress;
            result = switch (mode) {
                case "enqueue-single", "enqueue-batch" -> new EnqueueBench(settings).run(fresh.url());
                case "drain" -> settings.processes() > 0 ? new ScaleOutBench(settings).run(fresh.url())
                        : new DrainBench(settings).run(fresh.url());
                case "latency" -> new LatencyBench(settings).run(fresh.url());
                case "steps" -> new StepsBench(settings).run(fresh.url());
                case "sustained" -> new SustainedBench(settings).run(fresh.url());
                default -> throw new IllegalStateException("unreachable: " + mode);
            };
            ObjectNode settingsJson = result.putObject("settings");
            settingsJson.put("db", fresh.kind());
            settingsJson.put("batch", batch);
            settingsJson.put("concurrency", concurrency);
            settingsJson.put("rate", rate);
            settingsJson.put("history", history);
            settingsJson.put("analyze", analyze);
            settingsJson.put("processes", processes == null ? 0 : processes);
            if (poolSize != null) {
                settingsJson.put("pool_size", poolSize);
            } else {
                settingsJson.putNull("pool_size"); // the driver's default
            }
            settingsJson.put("seconds", seconds);
            settingsJson.put("java", Runtime.version().toString());
        } finally {
            BenchSupport.output = BenchProgress.open(false);
        }
        System.out.println(CliJson.MAPPER.writeValueAsString(result));
        return result.path("ok").asBoolean() ? 0 : 1;
    }

    private BenchSettings validate() {
        if (!mode.matches("enqueue-single|enqueue-batch|drain|latency|steps|sustained")) {
            throw new IllegalArgumentException("MODE: expected enqueue-single, enqueue-batch, drain, latency, steps or sustained, got '"
                    + mode + "'");
        }
        int n = jobs != null ? jobs : switch (mode) {
            case "latency" -> 500;
            case "steps" -> 2000;
            default -> 20_000;
        };
        requireRange("--n", n, 1, mode.equals("steps") ? SkiplockConfig.MAX_STEPS_PER_JOB_LIMIT : 10_000_000);
        requireRange("--batch", batch, 1, 10_000);
        requireRange("--rate", rate, 1, 100_000);
        requireRange("--concurrency", concurrency, 1, 10_000);
        requireRange("--history", history, 0, 10_000_000);
        if (processes != null) {
            requireRange("--processes", processes, 1, 16);
            if (!mode.equals("drain") || history > 0) {
                throw new IllegalArgumentException("--processes: only with MODE drain, without --history");
            }
        }
        requireRange("--seconds", seconds, 1, 86_400);
        PoolSettings.requireSize("--pool-size", poolSize);
        if (poolSize != null && !mode.matches("drain|latency|sustained")) {
            throw new IllegalArgumentException("--pool-size: only with MODE drain, latency or sustained");
        }
        if (holdSnapshot && !mode.equals("sustained")) {
            throw new IllegalArgumentException("--hold-snapshot: only with MODE sustained");
        }
        if (analyze && (!mode.equals("drain") || processes != null)) {
            throw new IllegalArgumentException("--analyze: only with MODE drain, without --processes");
        }
        return new BenchSettings(mode, n, batch, rate, concurrency, history, seconds, holdSnapshot,
                processes == null ? 0 : processes, poolSize, analyze);
    }

    private static void requireRange(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + ": must be between " + min + " and " + max + ", got " + value);
        }
    }
}
