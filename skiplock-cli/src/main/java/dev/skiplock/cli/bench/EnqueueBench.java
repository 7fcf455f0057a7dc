package dev.skiplock.cli.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.JobRequest;
import dev.skiplock.JobStatus;
import dev.skiplock.Skiplock;

/** {@code enqueue-single} (one transaction per job, one thread) and {@code enqueue-batch} (calls of --batch). */
final class EnqueueBench {
    private final BenchSettings settings;

    EnqueueBench(BenchSettings settings) {
        this.settings = settings;
    }

    ObjectNode run(String url) {
        try (Skiplock client = BenchSupport.client(url)) {
            BenchSupport.progress(settings.mode() + ": enqueueing " + settings.jobs() + " jobs");
            long start = System.nanoTime();
            if (settings.mode().equals("enqueue-single")) {
                for (int i = 0; i < settings.jobs(); i++) {
                    client.enqueue(JobRequest.of(BenchSupport.KIND, null));
                }
            } else {
                BenchSupport.enqueueInBatches(client, settings.jobs(), settings.batch());
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            ObjectNode result = BenchSupport.result(settings);
            result.put("ok", BenchSupport.count(client, JobStatus.QUEUED) == settings.jobs());
            result.put("jobs_per_s", Math.round(settings.jobs() / seconds));
            result.put("seconds", seconds);
            return result;
        }
    }
}
