package dev.skiplock.conformance;

class PostgresWorkflowExampleTest extends WorkflowExampleContract {
    @Override
    protected TestDatabase newDatabase() {
        return new PostgresTestDatabase();
    }
}
