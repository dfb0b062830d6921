package io.rpcc.core.internal.wire;

/**
 * A place a chain returns to when the sub-chain it runs ends, or a branch of a split goes to when it
 * ends: an entry of the header's return stack. A hop that starts a nested sub-chain parks its own
 * chain under {@code continuation} at its node and pushes this point; the sub-chain's last hop sends
 * the sub-chain's result there (a {@code rpcc.return} request), where the node pops the point and the
 * parked chain resumes. A hop whose chaining function splits the chain pushes a <em>merge point</em>
 * ({@code branches > 0}) naming the merge host, the number of the splitting hop as
 * {@code continuation} and how many branches the split made; each branch's end sends its outcome
 * there, and the merge pops it.
 *
 * @param node the node holding the parked chain, or the merge host
 * @param continuation the number under which that node parked it, or the hop number of the split
 * @param branches 0 for a sub-chain's return point; for a merge point, the split's number of branches
 */
public record ReturnPoint(NodeAddress node, long continuation, int branches) {
    /** The deepest return stack a header may carry (nested sub-chains). */
    public static final int MAX_DEPTH = 64;

    /** The return point of a sub-chain: {@code continuation} parked at {@code node}. */
    public ReturnPoint(NodeAddress node, long continuation) {
        this(node, continuation, 0);
    }

    /** Whether this is a split's merge point rather than a sub-chain's return point. */
    public boolean isMerge() {
        return branches > 0;
    }
}
