/**
 * The client's side of chains: starting them and turning what comes back into results, reply sets
 * and exceptions ({@code ChainLauncher}), sending a chain again on a retryable failure
 * ({@code ChainAttempts}, with the client's {@link io.rpcc.client.internal.RetryTokens}), keeping failed
 * chains for a later retransmit ({@link io.rpcc.client.internal.FailedChains}), interactive mode, where
 * every chaining function runs at the client ({@link io.rpcc.client.internal.InteractiveChain},
 * {@link io.rpcc.client.internal.InteractiveSplit}), which also diagnoses where a broken chain stopped
 * ({@link io.rpcc.client.internal.ChainDiagnosis}), and the bounded buffer behind a
 * {@link io.rpcc.client.ReplySet} ({@link io.rpcc.client.internal.BufferedReplySet}).
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
package io.rpcc.client.internal;
