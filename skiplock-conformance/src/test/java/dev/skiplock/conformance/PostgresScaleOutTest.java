package dev.skiplock.conformance;

class PostgresScaleOutTest extends ScaleOutContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
