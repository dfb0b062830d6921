package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.NetUtil;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.Disconnect;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.VersionRange;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The HELLO each way that opens every connection. A node that dials sends its HELLO first and
 * waits, at most the connect timeout, for the peer's, which must name the node dialed; a node that
 * accepts answers a HELLO with its own. With TLS, a HELLO may claim only a name the peer's
 * certificate carries ({@link PeerAuthentication}), and an inbound connection so authenticated is
 * adopted for sending to that peer ({@link PeerTable}). A HELLO with no protocol version in common
 * is refused, and so is a connection that closes before its handshake is done, each saying why.
 */
final class Handshakes {
    private final NodeTransport.Config config;
    private final PeerAuthentication authentication;
    private final ConnectionRefusals refusals;
    private final ReadPauses pauses;
    private final RoundTrips roundTrips;
    private final PeerTable table;
    private final FrameWriter writer;
    private volatile Hello self;

    /** The handshakes of a node set up by {@code config}. */
    Handshakes(NodeTransport.Config config, PeerAuthentication authentication, ConnectionRefusals refusals,
               ReadPauses pauses, RoundTrips roundTrips, PeerTable table, FrameWriter writer) {
        this.config = config;
        this.authentication = authentication;
        this.refusals = refusals;
        this.pauses = pauses;
        this.roundTrips = roundTrips;
        this.table = table;
        this.writer = writer;
    }

    /** The node listens: {@code self} is the HELLO it sends from now on. */
    void listening(Hello self) {
        this.self = self;
    }

    /** This node's HELLO (once it listens). */
    Hello self() {
        return self;
    }

    private boolean tls() {
        return config.tls() != null;
    }

    /**
     * {@code dial}'s connection {@code ch} is open: this node's HELLO goes out, and the handshake
     * fails if not done within the connect timeout.
     */
    void opened(Channel ch, Dial dial) {
        InetSocketAddress address = dial.key().address();
        writer.writeOwn(ch, self);
        RoundTrips.of(ch).helloSent(System.nanoTime()); // (with TLS, again when its handshake is done: PeerAuthentication)
        var timeout = ch.eventLoop().schedule(() -> {
            if (dial.handshake().completeExceptionally(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "node at " + address
                    + " (expected '" + dial.peer() + "') did not answer the " + (tls() ? "TLS and " : "")
                    + "rpcc handshake within " + config.connectTimeout().toMillis() + " ms"
                    + (tls() ? "; if it runs without TLS, turn TLS on there too (builder.tls(...))" : "")))) {
                Disconnects.closing(ch, Disconnect.HANDSHAKE_FAILED);
                ch.close();
            }
        }, config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
        dial.handshake().whenComplete((c, e) -> timeout.cancel(false));
    }

    /**
     * The peer's HELLO {@code h} arrived on {@code ch} (outbound if {@code dial} is not {@code null}):
     * an inbound connection is answered (and, with TLS, adopted); an outbound one completes its
     * handshake if {@code h} names the node dialed, else fails it and closes.
     */
    void onHello(Channel ch, Dial dial, Hello h) {
        if (tls() && !authentication.authenticatedAs(ch, dial, h.node())) {
            return;
        }
        if (dial == null && self == null) {
            // a HELLO on a socket bound a moment before the node knows its own HELLO (a restart at a fixed
            // address, its peers already dialing): close; the dialer connects again
            Disconnects.closing(ch, Disconnect.HANDSHAKE_FAILED);
            ch.close();
            return;
        }
        ch.attr(ConnectionAttributes.PEER).set(h);
        if (dial == null) {
            if (tls()) {
                adopt(ch, h);
            }
            writer.writeOwn(ch, self);
        } else if (!h.node().equals(dial.peer())) {
            dial.handshake().completeExceptionally(new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "the node at "
                    + ch.remoteAddress() + " is '" + h.node() + "', not '" + dial.peer()
                    + "': check the name resolver"));
            Disconnects.closing(ch, Disconnect.HANDSHAKE_FAILED);
            ch.close();
        } else {
            pauses.sendingTo(h.node(), ch);
            // measured before the first chain goes out on the connection (which measures it again with a
            // PING, without the connection's set-up work in the way: see oneWayNanos)
            RoundTrips.of(ch).helloAnswered(System.nanoTime());
            dial.handshake().complete(ch);
        }
    }

    /**
     * The peer's HELLO shows no protocol version in common with this node's: counted and logged;
     * an inbound connection is answered with this node's HELLO (so that the peer learns this
     * node's versions and can say so) and closed; an outbound one fails its handshake with a
     * {@link ChainErrorCode#PROTOCOL_VERSION} failure naming both nodes' versions.
     */
    void onVersionMismatch(Channel ch, Dial dial, FrameDecoder.VersionMismatch v) {
        refusals.count(Refusal.PROTOCOL_VERSION);
        String peer = v.peer() != null ? v.peer() : dial != null ? dial.peer() : "the node at " + ch.remoteAddress();
        String reason = VersionRange.SUPPORTED.mismatch(config.nodeName(), peer, v.versions());
        refusals.warn(ch.remoteAddress(), "node '{}' refused {} from {}: {}; connection closed", config.nodeName(),
                Refusal.PROTOCOL_VERSION, ch.remoteAddress(), reason);
        Disconnects.closing(ch, Disconnect.REFUSED);
        if (dial == null) {
            writer.writeOwn(ch, self).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        dial.handshake().completeExceptionally(new HopFailure(ChainErrorCode.PROTOCOL_VERSION, "cannot reach '" + dial.peer()
                + "' at " + ch.remoteAddress() + ": " + reason));
        ch.close();
    }

    /**
     * {@code dial}'s connection {@code ch} closed: its handshake, if not done, fails, saying how
     * (during the TLS handshake, or during rpcc's).
     */
    void closed(Channel ch, Dial dial) {
        String expectedPeer = dial.peer();
        PeerKey key = dial.key();
        Throwable tlsFailure = ch.attr(ConnectionAttributes.TLS_FAILURE).get();
        dial.handshake().completeExceptionally(tlsFailure == null
                ? new HopFailure(ChainErrorCode.HOP_UNREACHABLE, "connection to '" + expectedPeer + "' at "
                        + key.address() + " closed during the rpcc handshake: '" + expectedPeer + "' may be "
                        + "down or restarting behind a proxy" + (!tls()
                        ? "; if it runs TLS, this node needs TLS too (builder.tls(...))" : "")
                        + "; a node of rpcc protocol version 2 or older closes the connection like this too "
                        + "(then upgrade '" + expectedPeer + "')")
                : new HopFailure(ChainErrorCode.PEER_AUTHENTICATION, "'" + expectedPeer + "' at " + key.address()
                        + " closed the connection during the TLS handshake: "
                        + TlsContexts.explain(tlsFailure), tlsFailure));
    }

    /**
     * Keeps an inbound connection whose peer TLS authenticated as {@code h.node()} for sending to
     * that node at the address it listens on. A peer that advertises a host name rather than an
     * address is not adopted (no name is resolved on an event loop): this node dials it instead.
     */
    private void adopt(Channel ch, Hello h) {
        InetAddress address = NetUtil.createInetAddressFromIpAddressString(h.host());
        if (address == null) {
            return;
        }
        PeerKey key = new PeerKey(h.node(), new InetSocketAddress(address, h.port()));
        if (table.adopt(key, ch)) {
            ch.attr(ConnectionAttributes.KEY).set(key);
            pauses.sendingTo(h.node(), ch);
            // chains may go out on it: its round trip is measured now (after the HELLO this node answers with)
            ch.eventLoop().execute(() -> roundTrips.measure(ch));
        }
    }
}
