package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.spi.EngineSpi;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A place a chain returns to when the sub-chain it runs ends, or a branch of a split goes to when it
 * ends: an entry of the header's return stack.
 *
 * <p>A hop that starts a nested sub-chain pushes a <em>return point</em>. Not composed, it parks its
 * own chain under {@code continuation} at its node; the sub-chain's last hop sends the sub-chain's
 * result there (a {@code rpcc.return} request), where the node pops the point and the parked chain
 * resumes. Composed (paper 3.4 and Fig. 5c), the point itself carries the hop's chaining function
 * and state: the node where the sub-chain ends pops it and runs that chaining function there, and the
 * chain goes on from that node without going back to the creator. Either way node and continuation
 * name the creator and its share of the chain: a failure of the sub-chain goes there first (paper
 * 3.8), and so do its partial replies if {@code repliesToCreator} (paper 7.1).
 *
 * <p>A hop whose chaining function splits the chain (paper 3.10) pushes a <em>merge point</em>
 * ({@code branches > 0}, see {@link #merge}) naming the merge host, the number of the splitting hop
 * as {@code continuation} and how many branches the split made; each branch's end sends its outcome
 * there, and the merge pops it. A merge point is never composed and does not redirect replies: the
 * branches' replies go where those of the hop that split went.
 *
 * @param node the node that started the sub-chain (holding the parked chain, if not composed), or the
 *     merge host
 * @param continuation the number under which that node parked the chain, or reserved for it; for a
 *     merge point, the hop number of the split
 * @param repliesToCreator whether the partial replies (and the credit that follows them) of the
 *     sub-chain's hops go to {@code node}, which passes them on (paper 7.1), rather than straight to
 *     the chain's originator; always {@code false} for a merge point
 * @param chainingFunction composed: the chaining function to resume the chain with (inline, or a
 *     repository reference as the hop had it); {@code null}: not composed, the node holds it
 * @param state composed: that chaining function's state; empty otherwise
 * @param branches 0 for a sub-chain's return point; for a merge point, the split's number of branches
 * @param creatorCredential the creator's signature over the sub-chain (between TLS nodes; see
 *     {@link ChainCredential}, signed by {@code node}), or {@code null}; always {@code null} for a merge point
 */
@EngineSpi
public record ReturnPoint(NodeAddress node, long continuation, boolean repliesToCreator,
                          @Nullable ChainingFunctionSource chainingFunction, ChainState state, int branches,
                          @Nullable ChainCredential creatorCredential) {
    /** The deepest return stack a header may carry (nested sub-chains). */
    public static final int MAX_DEPTH = 64;

    public ReturnPoint {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(state, "state");
        if (branches < 0 || (branches > 0 && (chainingFunction != null || repliesToCreator || creatorCredential != null))) {
            throw new IllegalArgumentException("a merge point (" + branches
                    + " branches) is neither composed nor takes replies nor carries a credential");
        }
    }

    /** A point without a creator's credential. */
    public ReturnPoint(NodeAddress node, long continuation, boolean repliesToCreator,
                       @Nullable ChainingFunctionSource chainingFunction, ChainState state, int branches) {
        this(node, continuation, repliesToCreator, chainingFunction, state, branches, null);
    }

    /** This point carrying {@code signed}, its creator's credential for the sub-chain. */
    public ReturnPoint withCreatorCredential(ChainCredential signed) {
        return new ReturnPoint(node, continuation, repliesToCreator, chainingFunction, state, branches, signed);
    }

    /** A point whose chain is parked at {@code node} under {@code continuation} (not composed). */
    public ReturnPoint(NodeAddress node, long continuation, boolean repliesToCreator) {
        this(node, continuation, repliesToCreator, null, ChainState.empty(), 0);
    }

    /** A composed point: the chain resumes wherever the sub-chain ends, with {@code chainingFunction} and {@code state}. */
    public static ReturnPoint composed(NodeAddress creator, long continuation, boolean repliesToCreator,
                                       ChainingFunctionSource chainingFunction, ChainState state) {
        return new ReturnPoint(creator, continuation, repliesToCreator,
                Objects.requireNonNull(chainingFunction, "chainingFunction"), state, 0);
    }

    /** The merge point of a split of {@code branches} branches after hop {@code splitHop}, merging at {@code mergeHost}. */
    public static ReturnPoint merge(NodeAddress mergeHost, long splitHop, int branches) {
        if (branches < 1) {
            throw new IllegalArgumentException("a split has at least one branch, not " + branches);
        }
        return new ReturnPoint(mergeHost, splitHop, false, null, ChainState.empty(), branches);
    }

    /** Whether the point carries the chaining function and state (the chain resumes where the sub-chain ends). */
    public boolean composed() {
        return chainingFunction != null;
    }

    /** Whether this is a split's merge point rather than a sub-chain's return point. */
    public boolean isMerge() {
        return branches > 0;
    }

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
