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
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnPoint;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Finds out who asks for a hop that reaches a node ({@link ChainCaller}), and refuses a request
 * whose originator cannot be proven at a TLS node.
 *
 * <p>With TLS ({@code credentials} set), a request's originator (and the creator of the sub-chain
 * it is in) is verified by its credential ({@link ChainCredentials#check}), unless the request comes
 * from the originator (creator) itself, whose TLS certificate on the connection it came on is proof
 * enough (so a chain's first hop checks no signature), or from this node. Anything else is
 * refused with {@link ChainErrorCode#PERMISSION_DENIED} and counted as
 * {@link Refusal#FORGED_ORIGINATOR}: a node authenticated by TLS cannot name another node as a
 * chain's originator. A proven request's hop runs under the budget its header claims or, if that
 * is more, what the deadline its originator (or sub-chain creator) signed leaves: a node on the way
 * cannot make a chain live longer, and a request that took long to arrive is not mistaken for a
 * forged one. In plaintext nothing is proven: the originator is the name the request claims,
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
     * {@code request}, which arrived on {@code from} ({@code null}: made here) at {@code arrivedNanos},
     * with who asks for it set, and at a TLS node its budget cut back to what the deadlines its
     * credentials signed leave ({@link ChainCredentials#budgetNanos}): the hop runs under that budget,
     * times out by it and passes it on.
     *
     * @throws HopFailure with {@link ChainErrorCode#PERMISSION_DENIED} if a TLS node cannot prove the
     *     request's originator
     */
    ChainRequest checked(ChainRequest request, @Nullable Channel from, long arrivedNanos) {
        if (request.caller() != null) { // checked when it first arrived (taken up again here)
            return request;
        }
        ChainHeader h = request.header();
        String previous = transport.peerOf(from);
        ReturnPoint sub = innermostSubChain(h.returnStack());
        String creator = sub == null ? null : sub.node().node();
        if (credentials == null) {
            return request.from(new ChainCaller(h.origin(), false, previous, creator));
        }
        Sender sender = new Sender(previous, transport.authenticatedPeer(from), from == null, arrivedNanos);
        long budget = prove(h, "originator", h.originator(), h.credential(), h.returnStack().isEmpty(), sender);
        if (sub != null) {
            budget = Math.min(budget, prove(h, "sub-chain creator", sub.node(), sub.creatorCredential(), true, sender));
        }
        ChainRequest checked = request.from(new ChainCaller(h.origin(), true, previous, creator));
        return budget == h.budgetNanos() ? checked : checked.withHeader(h.withBudget(budget));
    }

    /**
     * The budget {@code h}'s hop may run under as far as {@code signer} is concerned (its claim, or less
     * if the deadline {@code credential} signed leaves less); throws unless {@code credential} proves
     * that {@code signer} started the chain (or sub-chain) of {@code h}, or {@code sender} is
     * {@code signer} itself (its TLS name, or this node), whose claim is its own.
     *
     * @param outermost whether {@code h} may be the signer's first hop (no sub-chain opened since)
     */
    private long prove(ChainHeader h, String role, NodeAddress signer, @Nullable ChainCredential credential,
                       boolean outermost, Sender sender) {
        String previous = sender.previous();
        String peer = sender.peer();
        boolean local = sender.local();
        if (signer.node().equals(peer) || (local && signer.node().equals(nodeName))) {
            return h.budgetNanos(); // its TLS certificate (or this node itself) is the proof: what it claims is its own claim
        }
        if (credential == null) {
            throw denied(h, previous, "the request names '" + signer.node() + "' as the chain's " + role
                    + " but carries no credential signed by it, and " + (local ? "was made here" : "its sender is "
                    + previous));
        }
        boolean firstHop = outermost && h.hop() == credential.first().hop() && !h.serviceFunction().startsWith("rpcc.");
        String why = credentials.check(h, credential, signer, nodeName, firstHop);
        if (why != null) {
            throw denied(h, previous, "the credential of " + role + " '" + signer.node() + "' does not hold: " + why);
        }
        return credentials.budgetNanos(h, credential, sender.arrivedNanos());
    }

    private HopFailure denied(ChainHeader h, String previous, String why) {
        transport.refusals().count(Refusal.FORGED_ORIGINATOR);
        return new HopFailure(ChainErrorCode.PERMISSION_DENIED, "node '" + nodeName + "' refused hop " + h.hop()
                + " ('" + h.serviceFunction() + "', sent by " + previous + "): " + why + ". Start the chain from a node"
                + " whose TLS certificate this node trusts and names the originator; a node on the way may shorten the"
                + " chain's hop limit, never widen it");
    }

    /**
     * Who sent a request: the previous hop as {@code NodeTransport.peerOf} names it, the node name
     * mutual TLS authenticated for its connection ({@code null}: none), whether it was made here, and
     * when it arrived ({@link System#nanoTime()}).
     */
    private record Sender(String previous, @Nullable String peer, boolean local, long arrivedNanos) {
    }

    /** The return point of the innermost sub-chain of {@code stack}, or {@code null}. */
    private static @Nullable ReturnPoint innermostSubChain(List<ReturnPoint> stack) {
        for (int i = stack.size() - 1; i >= 0; i--) {
            if (!stack.get(i).isMerge()) {
                return stack.get(i);
            }
        }
        return null;
    }
}
