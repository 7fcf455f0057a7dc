package dev.skiplock.conformance;

class SqliteJobFieldsTest extends JobFieldsContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
