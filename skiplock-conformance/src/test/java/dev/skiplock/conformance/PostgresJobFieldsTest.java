package dev.skiplock.conformance;

class PostgresJobFieldsTest extends JobFieldsContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
