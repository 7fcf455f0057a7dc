package dev.skiplock.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.Job;
import dev.skiplock.JobEvent;

/** The API's job and event JSON (API.md): field names and shapes clients rely on. */
final class JobJson {
    private JobJson() {
    }

    static ObjectNode job(Job job) {
        return ServerJson.MAPPER.valueToTree(job);
    }

    static ObjectNode event(JobEvent event) {
        ObjectNode node = ServerJson.object();
        node.put("seq", event.seq());
        node.put("ts", event.ts() == null ? null : event.ts().toString());
        node.put("jobId", event.jobId().toString());
        node.put("attempt", event.attempt());
        node.put("type", event.type());
        node.put("status", event.status());
        node.put("step", event.step());
        node.put("stream", event.stream());
        node.put("message", event.message());
        node.set("data", event.data());
        return node;
    }
}
