package dev.skiplock.conformance;

class PostgresOpenApiTest extends OpenApiContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
