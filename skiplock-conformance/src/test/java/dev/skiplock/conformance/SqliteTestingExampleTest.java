package dev.skiplock.conformance;

import dev.skiplock.testing.SkiplockTest;

@SkiplockTest(database = SkiplockTest.Database.SQLITE, scope = SkiplockTest.Scope.TEST)
class SqliteTestingExampleTest extends TestingExampleContract {
}
