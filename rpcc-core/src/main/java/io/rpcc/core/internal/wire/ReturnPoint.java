package io.rpcc.core.internal.wire;

/**
 * A place a chain returns to when the sub-chain it runs ends: an entry of the header's return
 * stack. A hop that starts a nested sub-chain parks its own chain under {@code continuation} at its
 * node and pushes this point; the sub-chain's last hop sends the sub-chain's result there (a
 * {@code rpcc.return} request), where the node pops the point and the parked chain resumes.
 *
 * @param node the node holding the parked chain
 * @param continuation the number under which that node parked it
 */
public record ReturnPoint(NodeAddress node, long continuation) {
    /** The deepest return stack a header may carry (nested sub-chains). */
    public static final int MAX_DEPTH = 64;
}
