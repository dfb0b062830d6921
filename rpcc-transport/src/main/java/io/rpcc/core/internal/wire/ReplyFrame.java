package io.rpcc.core.internal.wire;

import io.rpcc.core.BranchId;
import io.rpcc.core.spi.EngineSpi;

/**
 * A REPLY frame: a partial reply ({@code preturn}) from any hop, sent straight to the originator.
 *
 * <p>A reply is identified within its chain by {@code branch}, {@code hop}, {@code host} and
 * {@code seq}: a hop that is replayed when its chain is sent again sends its replies again under
 * the same identity, and the originator delivers each identity once ({@link #UNKEYED}: always).
 *
 * @param chain the chain (its number at the originator) and its secret
 * @param branch the branch of the hop that produced it
 * @param stream the hop that produced it and the node it ran at
 * @param seq the reply's number among its hop's replies (from 0), or {@link #UNKEYED}
 * @param value the reply
 * @param decodeError set by the decoder when the value could not be read
 * @param size the frame's length on the wire, length field included (set by the decoder; what the
 *     reply costs of its chain's byte window), or 0 before it is encoded
 */
@EngineSpi
public record ReplyFrame(ChainKey chain, BranchId branch, ReplyStream stream, long seq, Object value,
                         HopFailure decodeError, int size) implements FrameOfStream {
    /** The {@code seq} of a reply that has no identity: it is delivered every time it arrives. */
    public static final long UNKEYED = -1;

    /** A reply not yet encoded. */
    public ReplyFrame(ChainKey chain, BranchId branch, ReplyStream stream, long seq, Object value,
                      HopFailure decodeError) {
        this(chain, branch, stream, seq, value, decodeError, 0);
    }
}
