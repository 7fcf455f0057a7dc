/** Runs each driver's named statements: jobs store and migrator. The only place that touches JDBC. Not API. */
package dev.skiplock.internal.store;
