/** Engine internals shared by the subpackages (JSON, ids). Not API: may change in any release. */
package dev.skiplock.internal;
