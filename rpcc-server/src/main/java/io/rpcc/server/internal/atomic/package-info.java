/**
 * The local transaction engine of atomic chains at one node: {@link
 * io.rpcc.server.internal.atomic.LocalTransactions} keeps a {@link
 * io.rpcc.server.internal.atomic.Participant} per transaction (per {@code TxKey}) that has run hops here,
 * runs each hop as an attempt whose writes are a layer on top of the participant ({@link
 * io.rpcc.server.internal.atomic.HopRun}: done, failed, or parked on a lock), prepares, commits and aborts.
 *
 * <p>Locks ({@link io.rpcc.server.internal.atomic.TxLock}) are read/write locks (and an intention-write
 * mode for a map's map-wide lock), held by participants until they end, granted to waiters in
 * transaction order (a waiter that comes first is granted first), with wound-wait: a requester that
 * comes first and finds a later holder wounds it ({@link
 * io.rpcc.server.internal.atomic.LocalTransactions.WoundSink}) and waits. A waiting hop holds no
 * thread: the request throws {@link io.rpcc.server.internal.atomic.TxWait} out of the service function
 * and the hop is parked until the lock is granted. No monitor of the engine is held while user code
 * (service functions, hooks, resource managers) runs; monitors are taken lock before participant.
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
@NullMarked
package io.rpcc.server.internal.atomic;

import org.jspecify.annotations.NullMarked;
