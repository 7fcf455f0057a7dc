package dev.skiplock.internal.store;

import dev.skiplock.Job;
import java.util.List;

/**
 * Jobs an enqueue committed in a transaction of its own.
 *
 * @param jobs      one per request, in order: the new job, or the live one holding its unique key
 * @param announced true if the listeners were notified at the commit; false if the caller must
 *                  announce the queues ({@code Notifier.publishQueueReady})
 */
public record Inserted(List<Job> jobs, boolean announced) {
}
