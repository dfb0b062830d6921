package io.rpcc.core.internal.chain;

import io.netty.channel.Channel;
import io.netty.util.NetUtil;
import io.rpcc.core.NameResolver;
import io.rpcc.core.OutboundPolicy;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnPoint;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * Which addresses named in a REQUEST's header a node may connect to ({@link OutboundPolicy}). A
 * header names its originator, its reply-to node and the nodes of its return stack; the node reaches
 * each at the address its resolver gives for the name, else at the host and port the header gives
 * ({@link HopRouter#addressOf}). Under {@link OutboundPolicy#VOUCHED} such a name is vouched for if:
 * <ol>
 *   <li>the node's resolver knows the name (the header's host and port are then never used);</li>
 *   <li>its host is the remote IP of the connection the REQUEST came on (a peer can make this node
 *       connect only to itself): an IP literal equal to it, or a host name that resolves to it
 *       (looked up on a worker thread, at most {@link #MAX_HOST_LOOKUPS} at once); or its address is
 *       one the resolver gave for some name (a known node);</li>
 *   <li>or the REQUEST came from a vouched peer, which vouches for everything it names: one
 *       authenticated by mutual TLS, or, in plaintext, one whose remote IP is that of an address the
 *       resolver gave, or whose HELLO names a node the resolver places at that IP. So the vouching
 *       passes along a chain of cluster nodes back to the client that started it.</li>
 * </ol>
 * What the resolver gave is remembered (a bounded set): {@link #resolver()} is the node's resolver
 * seen through this. The checks that need no resolver run on the event loop
 * ({@link #vouchedAtOnce}); the others on a worker thread ({@link #unvouched}), since a resolver may
 * block. Thread-safe.
 */
final class OutboundVouching {
    /** The most addresses (and hosts) remembered from the resolver; past it, no more are added. */
    static final int MAX_KNOWN = 65_536;
    /** The most host names looked up at once (a name's host must resolve to the request's IP); more are not vouched. */
    static final int MAX_HOST_LOOKUPS = 16;

    private final Semaphore lookups = new Semaphore(MAX_HOST_LOOKUPS);

    private final OutboundPolicy policy;
    private final NameResolver resolver;
    private final NodeTransport transport;
    private final Set<InetSocketAddress> knownAddresses = ConcurrentHashMap.newKeySet();
    private final Set<InetAddress> knownHosts = ConcurrentHashMap.newKeySet();
    private final NameResolver recording;

    /** The vouching of a node that follows {@code policy}, resolving with {@code resolver}, on {@code transport}. */
    OutboundVouching(OutboundPolicy policy, NameResolver resolver, NodeTransport transport) {
        this.policy = policy;
        this.resolver = resolver;
        this.transport = transport;
        this.recording = new Recording();
    }

    /** The node's resolver, whose every answer this remembers as vouched for. */
    NameResolver resolver() {
        return recording;
    }

    /** The policy. */
    OutboundPolicy policy() {
        return policy;
    }

    /**
     * Whether every address {@code h} names is vouched for without asking the resolver (policy
     * {@link OutboundPolicy#ANY}, a request made here, a vouched peer, the peer's own IP, addresses
     * the resolver gave before). Cheap: for the event loop.
     */
    boolean vouchedAtOnce(ChainHeader h, Channel from) {
        if (policy == OutboundPolicy.ANY || from == null || transport.authenticated(from)) {
            return true;
        }
        InetAddress remote = remoteIp(from);
        if (remote == null) {
            return false;
        }
        if (knownHosts.contains(remote)) {
            return true;
        }
        for (NodeAddress a : named(h)) {
            if (!vouchedByAddress(a, remote)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The first address {@code h} names that nothing vouches for, or {@code null} if all are; asks the
     * resolver (so call off the event loops).
     */
    NodeAddress unvouched(ChainHeader h, Channel from) {
        if (vouchedAtOnce(h, from)) {
            return null;
        }
        InetAddress remote = remoteIp(from);
        String peer = transport.peerName(from);
        if (remote != null && peer != null && resolvesTo(peer, remote)) {
            return null; // a node the resolver places at the IP it connects from
        }
        for (NodeAddress a : named(h)) {
            if ((remote == null || !vouchedByAddress(a, remote)) && !known(a.node())
                    && (remote == null || !hostNameIs(a.host(), remote))) {
                return a;
            }
        }
        return null;
    }

    /**
     * The first address {@code h} names that is not vouched for without asking the resolver (see
     * {@link #vouchedAtOnce}), for a request refused without the look-up.
     */
    NodeAddress firstUnvouchedAtOnce(ChainHeader h, Channel from) {
        InetAddress remote = remoteIp(from);
        List<NodeAddress> named = named(h);
        for (NodeAddress a : named) {
            if (remote == null || !vouchedByAddress(a, remote)) {
                return a;
            }
        }
        return named.getFirst();
    }

    /**
     * Whether {@code host}, a host name (not an IP literal), resolves to {@code remote}: a node that
     * advertises its host name (a container's, say) and connects from its address. At most
     * {@link #MAX_HOST_LOOKUPS} run at once (the JVM caches their answers); past that, not vouched.
     */
    private boolean hostNameIs(String host, InetAddress remote) {
        if (NetUtil.createInetAddressFromIpAddressString(host) != null || !lookups.tryAcquire()) {
            return false;
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (a.equals(remote)) {
                    return true;
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false;
        } finally {
            lookups.release();
        }
    }

    /** The addresses {@code h} names: originator, reply-to, the nodes of its return stack. */
    static List<NodeAddress> named(ChainHeader h) {
        List<NodeAddress> all = new ArrayList<>(2 + h.returnStack().size());
        all.add(h.originator());
        all.add(h.replyTo());
        for (ReturnPoint p : h.returnStack()) {
            all.add(p.node());
        }
        return all;
    }

    private boolean vouchedByAddress(NodeAddress a, InetAddress remote) {
        InetAddress host = NetUtil.createInetAddressFromIpAddressString(a.host()); // a literal, or null: no DNS
        return host != null && (host.equals(remote) || knownAddresses.contains(new InetSocketAddress(host, a.port())));
    }

    private boolean known(String name) {
        try {
            return recording.resolve(name).isPresent();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private boolean resolvesTo(String name, InetAddress remote) {
        try {
            for (InetSocketAddress a : recording.resolveAll(name)) {
                if (remote.equals(a.getAddress())) {
                    return true;
                }
            }
        } catch (RuntimeException e) {
            return false;
        }
        return false;
    }

    private static InetAddress remoteIp(Channel ch) {
        return ch.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
    }

    private void remember(InetSocketAddress a) {
        if (a.getAddress() != null && knownAddresses.size() < MAX_KNOWN) {
            knownAddresses.add(a);
            knownHosts.add(a.getAddress());
        }
    }

    /** The node's resolver, remembering what it answers. */
    private final class Recording implements NameResolver {
        @Override
        public Optional<InetSocketAddress> resolve(String server) {
            Optional<InetSocketAddress> a = resolver.resolve(server);
            a.ifPresent(OutboundVouching.this::remember);
            return a;
        }

        @Override
        public List<InetSocketAddress> resolveAll(String server) {
            List<InetSocketAddress> all = resolver.resolveAll(server);
            all.forEach(OutboundVouching.this::remember);
            return all;
        }

        @Override
        public String toString() {
            return resolver.toString();
        }
    }
}
