package io.rpcc.core.internal.chain;

import io.netty.channel.Channel;
import io.rpcc.core.ChainCaller;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.transport.ChainCredentials;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.wire.ChainCredential;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.ReturnPoint;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Finds out who asks for a hop that reaches a node ({@link ChainCaller}), and refuses a request
 * whose originator cannot be proven at a TLS node.
 *
 * <p>With TLS ({@code credentials} set), a request's originator is verified by its credential
 * ({@link ChainCredentials#check}); a request without one is taken only from the originator itself
 * (the TLS certificate of the connection it came on names it) or from this node. Anything else is
 * refused with {@link ChainErrorCode#PERMISSION_DENIED} and counted as
 * {@link Refusal#FORGED_ORIGINATOR}: a node authenticated by TLS cannot name another node as a
 * chain's originator. In plaintext nothing is proven: the originator is the name the request claims,
 * unverified, and the previous hop the remote address.
 */
final class ChainCallers {
    private final String nodeName;
    private final NodeTransport transport;
    private final @Nullable ChainCredentials credentials;

    ChainCallers(String nodeName, NodeTransport transport, @Nullable ChainCredentials credentials) {
        this.nodeName = nodeName;
        this.transport = transport;
        this.credentials = credentials;
    }

    /**
     * Who asks for {@code request}, which arrived on {@code from} ({@code null}: made at this node).
     *
     * @throws HopFailure with {@link ChainErrorCode#PERMISSION_DENIED} if a TLS node cannot prove the
     *     request's originator
     */
    ChainCaller callerOf(ChainRequest request, @Nullable Channel from) {
        if (request.caller() != null) { // checked when it first arrived (taken up again here)
            return request.caller();
        }
        ChainHeader h = request.header();
        String previous = transport.peerOf(from);
        String creator = creatorOf(h.returnStack());
        if (credentials == null) {
            return new ChainCaller(h.origin(), false, previous, creator);
        }
        ChainCredential credential = h.credential();
        if (credential == null) {
            String peer = transport.authenticatedPeer(from);
            boolean self = from == null && h.origin().equals(nodeName);
            if (self || h.origin().equals(peer)) {
                return new ChainCaller(h.origin(), true, previous, creator);
            }
            throw denied(h, previous, "the request names '" + h.origin() + "' as the chain's originator but carries no"
                    + " credential signed by it, and " + (from == null ? "was made here" : "its sender is " + previous));
        }
        boolean firstHop = h.hop() == credential.first().hop() && h.returnStack().isEmpty()
                && !h.serviceFunction().startsWith("rpcc.");
        String why = credentials.check(h, credential, h.originator(), nodeName, firstHop);
        if (why != null) {
            throw denied(h, previous, "the credential of originator '" + h.origin() + "' does not hold: " + why);
        }
        return new ChainCaller(h.origin(), true, previous, creator);
    }

    private HopFailure denied(ChainHeader h, String previous, String why) {
        transport.refusals().count(Refusal.FORGED_ORIGINATOR);
        return new HopFailure(ChainErrorCode.PERMISSION_DENIED, "node '" + nodeName + "' refused hop " + h.hop()
                + " ('" + h.serviceFunction() + "', sent by " + previous + "): " + why + ". Start the chain from a node"
                + " whose TLS certificate this node trusts and names the originator; a node on the way may shorten the"
                + " chain's deadline and hop limit, never widen them");
    }

    /** The node that started the innermost sub-chain of {@code stack}, or {@code null}. */
    private static @Nullable String creatorOf(List<ReturnPoint> stack) {
        for (int i = stack.size() - 1; i >= 0; i--) {
            if (!stack.get(i).isMerge()) {
                return stack.get(i).node().node();
            }
        }
        return null;
    }
}
