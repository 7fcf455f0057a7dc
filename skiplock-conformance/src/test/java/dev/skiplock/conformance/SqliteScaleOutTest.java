package dev.skiplock.conformance;

class SqliteScaleOutTest extends ScaleOutContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
