package io.rpcc.core.internal.chain;

import io.rpcc.core.BranchId;
import io.rpcc.core.spi.EngineSpi;
import java.util.List;

/**
 * Where in its chain a hop that an originator launches runs: the chain's first hop
 * ({@link #FIRST}), or, when the originator runs the chain step by step (interactive mode), a later
 * hop on one of its branches.
 *
 * @param hop the hop's number, starting at 1
 * @param path the servers visited before it
 * @param branch the branch it is on
 */
@EngineSpi
public record ChainPosition(int hop, List<String> path, BranchId branch) {
    /** The chain's first hop, on its root branch. */
    public static final ChainPosition FIRST = new ChainPosition(1, List.of(), BranchId.root());
}
