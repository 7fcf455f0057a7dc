package dev.skiplock.conformance;

class SqliteOpenApiTest extends OpenApiContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
