package io.rpcc.server.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HopFailure;

/**
 * The handler of a request from a server whose chaining proxy this node is ({@link HopKind#PROXY},
 * paper 7.3): that server ran the service function; the chaining function runs here, with its
 * result, as the last timing of the chain says.
 */
final class ProxiedHop {
    private final String nodeName;
    private final boolean actsAsProxy;

    /** The proxied hops at node {@code nodeName}, which refuses them unless {@code actsAsProxy}. */
    ProxiedHop(String nodeName, boolean actsAsProxy) {
        this.nodeName = nodeName;
        this.actsAsProxy = actsAsProxy;
    }

    /** Takes up {@code hop}, of {@code request}, for its chaining function to run here. */
    HopResult run(HopState hop, ChainRequest request) {
        if (!actsAsProxy || hop.timings().isEmpty()) {
            throw new HopFailure(ChainErrorCode.UNKNOWN_SERVICE_FUNCTION, "node '" + nodeName
                    + "' is not a chaining proxy (RpccServer.builder(...).actAsChainingProxy())");
        }
        return new HopResult(hop, request.state(), request.params(), hop.timings().removeLast(), null);
    }
}
