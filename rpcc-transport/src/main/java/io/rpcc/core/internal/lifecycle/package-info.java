/**
 * Resources shared by the nodes of a JVM ({@link io.rpcc.core.internal.lifecycle.SharedResource}):
 * threads, timers and event loops that the first node to need them creates and the last one to close
 * disposes of.
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
package io.rpcc.core.internal.lifecycle;
