package dev.skiplock.conformance;

class PostgresEventsTest extends EventsContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
