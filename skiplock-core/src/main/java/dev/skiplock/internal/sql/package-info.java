/** Loads named SQL statements ({@code -- name: x}) from driver resources and binds {@code :params}. Not API. */
package dev.skiplock.internal.sql;
