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
 * @param size the frame's length on the wire, length field included (set by the decoder; what the
 *     reply costs of its chain's byte window), or 0 before it is encoded
 */
public record ReplyFrame(long chainId, ChainSecret secret, int hop, String host, Object value, HopFailure decodeError,
                         int size) {
    /** A reply not yet encoded. */
    public ReplyFrame(long chainId, ChainSecret secret, int hop, String host, Object value, HopFailure decodeError) {
        this(chainId, secret, hop, host, value, decodeError, 0);
    }
}
