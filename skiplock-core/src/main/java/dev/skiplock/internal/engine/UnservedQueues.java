package dev.skiplock.internal.engine;

import dev.skiplock.WorkerInfo;
import dev.skiplock.internal.store.WorkerStore;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices jobs enqueued to a queue that no live worker serves, by the worker registry: they would
 * wait, silently, until one does. Each such job is counted
 * ({@code SkiplockMetrics.enqueuedToUnservedQueues}) and a warning is logged at most once a minute
 * per queue. The registry is read at most every ten seconds, so a worker that just started may be
 * missed once, and one that died is missed until it is stale (silent past its lease).
 */
public final class UnservedQueues {
    private static final Logger LOG = LoggerFactory.getLogger(UnservedQueues.class);
    private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long WARN_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final WorkerStore workers;
    private final long heartbeatMillis;
    private final Counters counters;
    private final Map<String, Long> warnedAt = new ConcurrentHashMap<>();
    private volatile Set<String> served;
    private volatile long readAt;

    public UnservedQueues(WorkerStore workers, long heartbeatMillis, Counters counters) {
        this.workers = workers;
        this.heartbeatMillis = heartbeatMillis;
        this.counters = counters;
    }

    /** {@code queues}: the queue of each job just enqueued (one entry per job). */
    public void enqueued(List<String> queues) {
        Set<String> live = served();
        if (live == null) {
            return; // the registry could not be read: say nothing rather than something false
        }
        // A batch is nearly always one run of one queue: a run is counted, and its warning looked at, once.
        int start = 0;
        while (start < queues.size()) {
            String queue = queues.get(start);
            int end = start + 1;
            while (end < queues.size() && queues.get(end).equals(queue)) {
                end++;
            }
            if (!live.contains(queue)) {
                counters.enqueuedToUnservedQueue(end - start);
                warn(queue);
            }
            start = end;
        }
    }

    private void warn(String queue) {
        long now = System.nanoTime();
        Long warned = warnedAt.get(queue);
        if (warned != null && now - warned < WARN_NANOS) {
            return; // warned within the minute: the usual case, without a map update per enqueue
        }
        boolean[] due = {false};
        warnedAt.compute(queue, (name, last) -> {
            due[0] = last == null || now - last >= WARN_NANOS;
            return due[0] ? Long.valueOf(now) : last;
        });
        if (due[0]) {
            LOG.warn("jobs were enqueued to queue '{}', which no live worker serves (worker registry): they wait"
                    + " until a worker of that queue starts", queue);
        }
    }

    private Set<String> served() {
        long now = System.nanoTime();
        if (served == null || now - readAt >= REFRESH_NANOS) {
            synchronized (this) {
                if (served == null || now - readAt >= REFRESH_NANOS) {
                    try {
                        Set<String> queues = new HashSet<>();
                        for (WorkerInfo worker : workers.listWorkers(heartbeatMillis)) {
                            if (worker.status().equals("active")) {
                                queues.addAll(worker.queues());
                            }
                        }
                        served = Set.copyOf(queues);
                    } catch (RuntimeException e) {
                        LOG.debug("cannot read the worker registry: {}", e.getMessage());
                    }
                    readAt = now;
                }
            }
        }
        return served;
    }
}
