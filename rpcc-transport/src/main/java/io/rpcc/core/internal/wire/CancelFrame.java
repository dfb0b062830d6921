package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;

/**
 * A CANCEL frame: the originator of chain {@code origin#chainId} gave up on it (cancelled, or timed
 * out). It goes from the originator to the chain's first hop, then from each node to the node it
 * sent the chain on to (the chain's trail). A node accepts it only with the chain's secret.
 *
 * @param chainId the chain's number at its originator
 * @param secret the chain's secret
 * @param origin the originator's node name
 * @param budgetNanos what is left of the chain's deadline as the frame leaves its sender (how long
 *     a node that has not seen the chain yet remembers that it is cancelled), or
 *     {@link ChainHeader#NO_DEADLINE}
 */
@EngineSpi
public record CancelFrame(long chainId, ChainSecret secret, String origin, long budgetNanos) {
}
