package io.rpcc.core.internal.chain;

import io.rpcc.core.BranchId;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the heartbeats of the hops a node runs to their chains' top-level originators (paper 3.9,
 * 3.10), where {@link HopRouter#addressOf} finds them.
 */
public final class HeartbeatSender {
    private static final Logger log = LoggerFactory.getLogger(HeartbeatSender.class);

    private final String nodeName;
    private final NodeTransport transport;
    private final HopRouter router;

    /** The heartbeats of node {@code nodeName}, sent on {@code transport} to where {@code router} says. */
    public HeartbeatSender(String nodeName, NodeTransport transport, HopRouter router) {
        this.nodeName = nodeName;
        this.transport = transport;
        this.router = router;
    }

    /**
     * Tells the top-level originator of the chain of {@code h} that the chain (its attempt: the frame
     * carries {@link ChainHeader#attemptSecret()}) is alive at hop {@code hop} on {@code branch}, whose
     * levels' sibling counts are {@code siblings}, and whether that hop has handed the chain on but
     * still owes it partial replies ({@code owesReplies}); resolves the originator's name (call off
     * the event loops). A heartbeat that cannot be sent is dropped (the next one may get through; the
     * originator tells a broken chain by silence).
     */
    public void send(ChainHeader h, int hop, BranchId branch, List<Integer> siblings, boolean owesReplies) {
        HeartbeatFrame frame = new HeartbeatFrame(h.chainId(), h.attemptSecret(), hop, nodeName, branch, siblings,
                owesReplies);
        transport.send(h.origin(), router.addressOf(h.originator()), frame).whenComplete((v, e) -> {
            if (e != null) {
                log.debug("cannot send a heartbeat of chain {}#{} to '{}': {}", h.origin(), h.chainId(), h.origin(),
                        Node.unwrap(e).getMessage());
            }
        });
    }
}
