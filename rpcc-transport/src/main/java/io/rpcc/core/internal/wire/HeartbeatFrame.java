package io.rpcc.core.internal.wire;

import io.rpcc.core.BranchId;
import io.rpcc.core.spi.EngineSpi;
import java.util.List;

/**
 * A HEARTBEAT frame (paper 3.9, 3.10): the node holding a chain (a hop running there, or a merge
 * host holding a branch's outcome) tells the chain's top-level originator that the chain is alive
 * on {@code branch}. The originator accepts it only with the chain's secret.
 *
 * @param chainId the chain's number at its originator
 * @param secret the chain's secret (never a sub-chain's reply secret)
 * @param hop the hop the chain is at (for a merge host, the last hop of the branch that arrived)
 * @param host the node sending it
 * @param branch the branch it speaks for
 * @param siblings for each level of {@code branch}, from the root down, how many branches the split at
 *     that level made (0: not known); as many entries as {@code branch} is deep
 * @param owesReplies whether the hop has handed the chain on and sends it for work it started that
 *     still runs or sends partial replies (it holds a share of the chain's credit, which its QUIET
 *     returns); otherwise the sender holds the chain itself
 */
@EngineSpi
public record HeartbeatFrame(long chainId, ChainSecret secret, int hop, String host, BranchId branch,
                             List<Integer> siblings, boolean owesReplies) {
    /** A heartbeat of the node holding the chain. */
    public HeartbeatFrame(long chainId, ChainSecret secret, int hop, String host, BranchId branch,
                          List<Integer> siblings) {
        this(chainId, secret, hop, host, branch, siblings, false);
    }

    public HeartbeatFrame {
        siblings = List.copyOf(siblings);
        if (siblings.size() != branch.depth()) {
            throw new IllegalArgumentException("one sibling count per level of branch " + branch + ", got " + siblings);
        }
    }

    /** The sibling counts of each level of {@code branch}: the branch counts of the merge points of {@code stack}, in order, if there is one per level; else unknown (0). */
    public static List<Integer> siblingsOf(BranchId branch, List<ReturnPoint> stack) {
        List<ReturnPoint> merges = stack.stream().filter(ReturnPoint::isMerge).toList();
        Integer[] out = new Integer[branch.depth()];
        for (int i = 0; i < out.length; i++) {
            out[i] = merges.size() == out.length ? merges.get(i).branches() : 0;
        }
        return List.of(out);
    }
}
