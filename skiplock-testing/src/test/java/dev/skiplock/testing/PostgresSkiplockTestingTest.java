package dev.skiplock.testing;

@SkiplockTest(database = SkiplockTest.Database.POSTGRES, scope = SkiplockTest.Scope.TEST)
class PostgresSkiplockTestingTest extends SkiplockTestingContract {
    @Override
    protected SkiplockTest.Database expectedDatabase() {
        return SkiplockTest.Database.POSTGRES;
    }
}
