package io.rpcc.core.internal.wire;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A place a chain returns to when the sub-chain it runs ends: an entry of the header's return
 * stack. A hop that starts a nested sub-chain pushes this point. Not composed, it parks its own
 * chain under {@code continuation} at its node; the sub-chain's last hop sends the sub-chain's result
 * there (a {@code rpcc.return} request), where the node pops the point and the parked chain resumes.
 * Composed (paper 3.4 and Fig. 5c), the point itself carries the hop's chaining function and state:
 * the node where the sub-chain ends pops it and runs that chaining function there, and the chain goes
 * on from that node without going back to the creator; node and continuation still name the creator
 * (where failures of the sub-chain can be routed).
 *
 * @param node the node that started the sub-chain (holding the parked chain, if not composed)
 * @param continuation the number under which that node parked the chain, or reserved for it
 * @param chainingFunction composed: the chaining function to resume the chain with (inline, or a
 *     repository reference as the hop had it); {@code null}: not composed, the node holds it
 * @param state composed: that chaining function's state; empty otherwise
 */
public record ReturnPoint(NodeAddress node, long continuation, @Nullable ChainingFunctionSource chainingFunction,
                          ChainState state) {
    /** The deepest return stack a header may carry (nested sub-chains). */
    public static final int MAX_DEPTH = 64;

    public ReturnPoint {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(state, "state");
    }

    /** A point whose chain is parked at {@code node} under {@code continuation} (not composed). */
    public ReturnPoint(NodeAddress node, long continuation) {
        this(node, continuation, null, ChainState.empty());
    }

    /** A composed point: the chain resumes wherever the sub-chain ends, with {@code chainingFunction} and {@code state}. */
    public static ReturnPoint composed(NodeAddress creator, long continuation, ChainingFunctionSource chainingFunction,
                                       ChainState state) {
        return new ReturnPoint(creator, continuation, Objects.requireNonNull(chainingFunction, "chainingFunction"), state);
    }

    /** Whether the point carries the chaining function and state (the chain resumes where the sub-chain ends). */
    public boolean composed() {
        return chainingFunction != null;
    }
}
