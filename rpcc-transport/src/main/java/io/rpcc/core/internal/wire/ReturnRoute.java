package io.rpcc.core.internal.wire;

import io.rpcc.core.BranchId;
import io.rpcc.core.spi.EngineSpi;
import java.util.List;

/**
 * Where what a hop sends back goes (part of a {@link ChainHeader}): its partial replies and returned
 * credit, the chain's end, and the branch the hop is on.
 *
 * @param replyTo where the hop's partial replies and returned credit go: the originator, or, inside a
 *     sub-chain whose replies go to its creator, that creator (the innermost sub-chain's return point's node)
 * @param returnStack where the chain returns to when it ends, innermost last (empty: nowhere, it
 *     ends at {@code replyTo})
 * @param branch the branch of the chain this hop is on
 */
@EngineSpi
public record ReturnRoute(NodeAddress replyTo, List<ReturnPoint> returnStack, BranchId branch) {
}
