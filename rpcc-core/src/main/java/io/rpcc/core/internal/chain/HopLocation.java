package io.rpcc.core.internal.chain;

import io.rpcc.core.BranchId;
import io.rpcc.core.ChainCaller;
import io.rpcc.core.IsolationLevel;
import io.rpcc.core.spi.EngineSpi;

/**
 * Where a function invocation runs (part of a {@link HopContext}): which chain, which hop of it on
 * which branch, and at which node.
 *
 * @param chainId the chain's id: the originator's name and a number, e.g. {@code "client-1#42"}
 * @param originator the name of the node that started the chain
 * @param hop the index of the hop, starting at 1
 * @param branch the branch of the chain the hop is on
 * @param node the name of the node running the invocation
 * @param caller who asked for the hop (originator, previous hop, sub-chain creator)
 * @param isolation how isolated the server's chain policy runs the hop's functions
 */
@EngineSpi
public record HopLocation(String chainId, String originator, int hop, BranchId branch, String node,
                          ChainCaller caller, IsolationLevel isolation) {
    /** A location whose caller is {@code originator}, unverified, from this node, run in process. */
    public HopLocation(String chainId, String originator, int hop, BranchId branch, String node) {
        this(chainId, originator, hop, branch, node, new ChainCaller(originator, false, "local", null),
                IsolationLevel.IN_PROCESS);
    }
}
