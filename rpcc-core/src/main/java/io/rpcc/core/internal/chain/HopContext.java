package io.rpcc.core.internal.chain;

import io.rpcc.core.ChainContext;
import io.rpcc.core.VirtualConsole;

/** The {@link ChainContext} of one service or chaining function invocation. */
public record HopContext(String chainId, String originator, int hop, String node, VirtualConsole console)
        implements ChainContext {
}
