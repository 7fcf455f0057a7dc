package dev.skiplock.conformance;

class SqliteEventsTest extends EventsContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
