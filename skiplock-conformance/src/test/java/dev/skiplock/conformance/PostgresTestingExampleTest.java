package dev.skiplock.conformance;

import dev.skiplock.testing.SkiplockTest;

@SkiplockTest(database = SkiplockTest.Database.POSTGRES, scope = SkiplockTest.Scope.TEST)
class PostgresTestingExampleTest extends TestingExampleContract {
}
