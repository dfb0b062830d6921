/**
 * Judging transactions after the fact: {@link io.rpcc.testkit.history.History} records what the
 * clients of a test saw (each transaction's reads and writes, in order, and its outcome) and, where a
 * server can tell, the order in which committed writes were installed;
 * {@link io.rpcc.testkit.history.SerializabilityChecker} then decides whether some serial order of the
 * committed transactions explains everything that was observed, and if not, names the anomaly
 * (Adya's G0, G1a, G1b, G1c, G2, a lost update, a partial commit, a value nobody wrote) with the
 * transactions and keys involved.
 *
 * <p>The checker knows nothing of rpcc's transaction engine: it reads only the history, so it can judge
 * any implementation. Every written value must be unique per transaction and key (for example
 * {@code "T17:k3"}, or a number from a shared counter): that is how a read is traced back to the one
 * write it observed.
 *
 * <p>Everything here is non-null unless annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
@UnstableApi
package io.rpcc.testkit.history;

import io.rpcc.core.UnstableApi;
import org.jspecify.annotations.NullMarked;
