/**
 * The storage copy application and the papers' figures 11, 12 and 13: copying a file between storage
 * servers through the client (RPC copy) or server to server (chain copy), alone
 * ({@link io.rpcc.examples.copy.Copy}), under load ({@link io.rpcc.examples.copy.CopyUnderLoad}) and to
 * a replicated server ({@link io.rpcc.examples.copy.ReplicatedCopy}), each beside its ideal time
 * ({@link io.rpcc.examples.copy.CopyModel}).
 */
package io.rpcc.examples.copy;
