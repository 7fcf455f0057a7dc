package dev.skiplock.conformance;

class SqliteWorkflowTest extends WorkflowContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
