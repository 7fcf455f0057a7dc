package dev.skiplock.conformance;

class SqliteWorkflowExampleTest extends WorkflowExampleContract {
    @Override
    protected TestDatabase newDatabase() {
        return new SqliteTestDatabase();
    }
}
