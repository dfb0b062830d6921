package io.rpcc.core.internal.wire;

/**
 * A REPLY frame: a partial reply ({@code preturn}) from any hop, sent straight to the originator.
 *
 * @param chainId the chain's number at the originator
 * @param secret the chain's secret
 * @param hop the index of the hop that produced it
 * @param host the node that produced it
 * @param value the reply
 * @param decodeError set by the decoder when the value could not be read
 */
public record ReplyFrame(long chainId, ChainSecret secret, int hop, String host, Object value, HopFailure decodeError) {
}
