package io.rpcc.core.internal.wire;

import io.rpcc.core.spi.EngineSpi;

/**
 * Which chain a frame back from a hop is about, and the proof that its sender takes part in it: the
 * chain's number at the node the frame goes to and the secret of the frames to that node (part of a
 * {@link ChainResultFrame}, {@link ReplyFrame} or {@link WindowUpdateFrame}). The node takes the
 * frame only when the secret matches.
 *
 * @param chainId the chain's number at the node the frame goes to (its originator, or a sub-chain's
 *     creator)
 * @param secret the secret of the frames to that node
 */
@EngineSpi
public record ChainKey(long chainId, ChainSecret secret) {
}
