/**
 * State that atomic chains change as one transaction: {@link io.rpcc.server.atomic.TxVar} (one value)
 * and {@link io.rpcc.server.atomic.TxMap} (a map), read and written by service functions; the
 * transaction a hop runs in, {@link io.rpcc.server.atomic.Transaction#current()}, with hooks that run
 * only when it commits or aborts; and {@link io.rpcc.server.atomic.ResourceManager}, through which an
 * existing store takes part in the transaction's commit: a JDBC database's local transaction
 * ({@link io.rpcc.server.atomic.JdbcResourceManager}) or an XA branch
 * ({@link io.rpcc.server.atomic.XaResourceManager}).
 *
 * <p>Inside an atomic chain, reads and writes take read and write locks that are held until the
 * transaction ends (strict two-phase locking); writes go to a private copy that becomes visible to
 * others only when the transaction commits. A hop that must wait for a lock does not hold a thread:
 * its service function is stopped, its writes are dropped, and it runs again from its start once the
 * lock is granted. <strong>Service functions of atomic chains must therefore be re-runnable</strong>:
 * put effects outside rpcc (messages, files, calls to other systems) in
 * {@link io.rpcc.server.atomic.Transaction#onCommit(Runnable)} hooks, or in a resource manager.
 *
 * <p>Outside an atomic chain, {@code TxVar.get()} and {@code TxMap.get(key)} return the last committed
 * value without locking (each value on its own: two reads are not a snapshot of both), and writes are
 * refused.
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package io.rpcc.server.atomic;

import org.jspecify.annotations.NullMarked;
