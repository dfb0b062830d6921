package io.rpcc.core.internal.wire;

/**
 * A place a chain returns to when the sub-chain it runs ends: an entry of the header's return
 * stack. A hop that starts a nested sub-chain parks its own chain under {@code continuation} at its
 * node and pushes this point; the sub-chain's last hop sends the sub-chain's result there (a
 * {@code rpcc.return} request), where the node pops the point and the parked chain resumes.
 *
 * @param node the node holding the parked chain
 * @param continuation the number under which that node parked it
 * @param repliesToCreator whether the partial replies (and the credit that follows them) of the
 *     sub-chain's hops go to {@code node}, which passes them on (paper 7.1), rather than straight to
 *     the chain's originator
 */
public record ReturnPoint(NodeAddress node, long continuation, boolean repliesToCreator) {
    /** The deepest return stack a header may carry (nested sub-chains). */
    public static final int MAX_DEPTH = 64;

    /**
     * The secret that the frames of this point's sub-chain carry to {@link #node} when its replies go
     * there ({@code chain}'s secret mixed with the continuation number): it tells the creator which of
     * the sub-chains it started a frame belongs to, and, like the chain's, only the chain's
     * participants know it.
     */
    public ChainSecret replySecret(ChainSecret chain) {
        long c = mix(continuation + 0x9E37_79B9_7F4A_7C15L);
        return new ChainSecret(mix(chain.high() ^ c), mix(chain.low() ^ Long.rotateLeft(c, 31) ^ node.node().hashCode()));
    }

    /** SplitMix64's finalizer: every input bit reaches every output bit. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }
}
