package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.Disconnect;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.HopFailure;
import java.security.cert.X509Certificate;

/**
 * Who a TLS peer is: a TLS handshake that failed is refused; the node dialed must present a
 * certificate carrying the name it was dialed by, and a peer's HELLO may claim only a name its
 * certificate carries ({@link NodeIdentity}). A refusal is counted, logged and closes the
 * connection; an outbound connection's handshake fails with {@link ChainErrorCode#PEER_AUTHENTICATION}.
 */
final class PeerAuthentication {
    private final ConnectionRefusals refusals;

    /** Authentication refusing in {@code refusals}. */
    PeerAuthentication(ConnectionRefusals refusals) {
        this.refusals = refusals;
    }

    /**
     * Whether the TLS peer of {@code ch} carries {@code claimed} in its certificate; if not, the
     * connection is refused (counted, logged, closed; the handshake of {@code dial}, if outbound, fails).
     */
    boolean authenticatedAs(Channel ch, Dial dial, String claimed) {
        X509Certificate cert = TlsContexts.peerCertificate(ch);
        if (cert != null && NodeIdentity.carries(cert, claimed)) {
            return true;
        }
        refusals.count(Refusal.IMPERSONATION);
        String why = "the peer at " + ch.remoteAddress() + " claims to be '" + claimed + "' but its "
                + (cert == null ? "certificate is unknown" : NodeIdentity.describe(cert)) + " does not carry that name";
        refusals.warn(ch.remoteAddress(), "node '{}' refused a connection: {}", refusals.nodeName(), why);
        if (dial != null) {
            dial.handshake().completeExceptionally(new HopFailure(ChainErrorCode.PEER_AUTHENTICATION, why
                    + ": check the name resolver, or give '" + claimed + "' a certificate with "
                    + NodeIdentity.howToName(claimed)));
        }
        Disconnects.closing(ch, Disconnect.REFUSED);
        ch.close();
        return false;
    }

    /**
     * The TLS handshake of {@code ctx}'s connection ended: a failure is refused; on an outbound
     * connection ({@code dial}), the HELLO (which waited for it) counts as sent now, and the peer's
     * certificate must carry the name dialed.
     */
    void onTlsHandshake(ChannelHandlerContext ctx, Dial dial, SslHandshakeCompletionEvent done) {
        Channel ch = ctx.channel();
        if (!done.isSuccess()) {
            refusals.count(Refusal.TLS_HANDSHAKE);
            String why = TlsContexts.explain(done.cause());
            if (dial != null) {
                dial.handshake().completeExceptionally(new HopFailure(ChainErrorCode.PEER_AUTHENTICATION, "TLS handshake "
                        + "with '" + dial.peer() + "' at " + ch.remoteAddress() + " failed: " + why, done.cause()));
            } else {
                refusals.warn(ch.remoteAddress(), "node '{}' refused a TLS connection from {}: {}",
                        refusals.nodeName(), ch.remoteAddress(), why);
            }
            Disconnects.closing(ch, Disconnect.ERROR);
            ctx.close();
        } else if (dial != null) {
            String expectedPeer = dial.peer();
            RoundTrips.of(ch).helloSent(System.nanoTime()); // the HELLO waited for the TLS handshake
            X509Certificate cert = TlsContexts.peerCertificate(ch);
            if (cert == null || !NodeIdentity.carries(cert, expectedPeer)) {
                refusals.count(Refusal.IMPERSONATION);
                dial.handshake().completeExceptionally(new HopFailure(ChainErrorCode.PEER_AUTHENTICATION, "the node at "
                        + ch.remoteAddress() + " (the address of '" + expectedPeer + "') presented "
                        + (cert == null ? "no certificate" : "a " + NodeIdentity.describe(cert))
                        + " that does not carry the name '" + expectedPeer + "': check the name resolver, or "
                        + "give '" + expectedPeer + "' a certificate with " + NodeIdentity.howToName(expectedPeer)));
                Disconnects.closing(ch, Disconnect.REFUSED);
                ctx.close();
            }
        }
    }
}
