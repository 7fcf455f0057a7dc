package dev.skiplock.server;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One periodic job of the config file: {@code {name, schedule, timezone, job}}. {@code schedule} is a
 * UNIX cron expression ({@code "0 3 * * *"}) or {@code "@every 30s"}; {@code job} is an enqueue body.
 */
public record CronEntry(String name, String schedule, String timezone, JsonNode job) {
}
