package dev.skiplock.testing;

@SkiplockTest(database = SkiplockTest.Database.SQLITE, scope = SkiplockTest.Scope.TEST)
class SqliteSkiplockTestingTest extends SkiplockTestingContract {
    @Override
    protected SkiplockTest.Database expectedDatabase() {
        return SkiplockTest.Database.SQLITE;
    }
}
