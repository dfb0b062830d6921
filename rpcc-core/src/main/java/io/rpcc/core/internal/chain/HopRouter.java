package io.rpcc.core.internal.chain;

import io.netty.channel.Channel;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.NameResolver;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.spi.EngineSpi;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a node's frames go: resolves a server's name to its endpoints and hands a hop to the first
 * that takes it (failover, with {@link OutlierEjection}), charging the request's budget for the way
 * ({@link ChainBudgets#charged}); and where a chain's reply-to node or originator is reached.
 */
@EngineSpi
public final class HopRouter {
    private static final Logger log = LoggerFactory.getLogger(HopRouter.class);
    /** The most addresses {@link #literalAddresses} keeps before it starts over. */
    private static final int MAX_LITERAL_ADDRESSES = 1024;

    private final String nodeName;
    private final NameResolver resolver;
    private final NodeTransport transport;
    private final OutlierEjection ejection;
    private final ChainBudgets budgets;
    /**
     * The socket addresses made of the IP literals frames carry (a client's reply-to address, read
     * for every result it gets): the same for the same literal, so made once, not parsed for every
     * frame. Host names are not kept: each use resolves them again (the JVM's DNS cache, with its
     * expiry).
     */
    private final ConcurrentHashMap<NodeAddress, InetSocketAddress> literalAddresses = new ConcurrentHashMap<>();

    /**
     * The router of node {@code nodeName}: names resolved by {@code resolver}, frames sent on
     * {@code transport}, endpoints that fail ejected by {@code ejection}, budgets charged as
     * {@code budgets} says.
     */
    public HopRouter(String nodeName, NameResolver resolver, NodeTransport transport, OutlierEjection ejection,
                     ChainBudgets budgets) {
        this.nodeName = nodeName;
        this.resolver = resolver;
        this.transport = transport;
        this.ejection = ejection;
        this.budgets = budgets;
    }

    /**
     * Sends {@code request} to server {@code server}: resolves its name, connects (or reuses the
     * connection) and writes the frame. A name with several endpoints fails over: if the hop cannot
     * be handed to one (no connection, a failed handshake, or the connection failed before the frame
     * was written), the next is tried, in the resolver's order with ejected endpoints last
     * ({@link OutlierEjection}); a frame once written is the peer's, and what becomes of it is for
     * heartbeats and retry to find out. Fails with a {@link HopFailure}: unknown server, unreachable
     * server (every endpoint), or a request that cannot be serialized.
     */
    public CompletableFuture<Void> forward(String server, ChainRequest request) {
        return forward(server, request, Failovers.NONE);
    }

    /**
     * As {@link #forward(String, ChainRequest)}, telling {@code failovers} each time the request goes
     * on to the next endpoint of the name, just before it is sent there, on the thread that sends it.
     */
    public CompletableFuture<Void> forward(String server, ChainRequest request, Failovers failovers) {
        long sinceNanos = System.nanoTime();
        List<InetSocketAddress> endpoints;
        try {
            endpoints = resolver.resolveAll(server);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new HopFailure(ChainErrorCode.UNKNOWN_SERVER, "resolving server '" + server
                    + "' failed: " + e, e));
        }
        if (endpoints.isEmpty()) {
            return CompletableFuture.failedFuture(new HopFailure(ChainErrorCode.UNKNOWN_SERVER, "no address for server '"
                    + server + "' (name resolver: " + resolver + ")"));
        }
        if (endpoints.size() == 1) {
            return sendRequest(server, endpoints.getFirst(), request, sinceNanos);
        }
        return tryEndpoints(server, request, ejection.order(endpoints, System.nanoTime()), 0, new ArrayList<>(),
                sinceNanos, failovers);
    }

    /**
     * Sends {@code request} to server {@code server} at {@code address} (no failover), its budget
     * charged as {@link ChainBudgets#charged} says.
     */
    public CompletableFuture<Void> forward(String server, InetSocketAddress address, ChainRequest request) {
        return sendRequest(server, address, request, System.nanoTime());
    }

    /**
     * Connects to {@code server} at {@code address} (or reuses the connection) and writes
     * {@code request}, charged for the connection it goes on; sent once more, on a new connection,
     * if the write failed before the frame left ({@link NodeTransport#send(String, InetSocketAddress,
     * java.util.function.Function)}): a pooled connection let go at that moment does not fail the hop.
     */
    private CompletableFuture<Void> sendRequest(String server, InetSocketAddress address, ChainRequest request,
                                                long sinceNanos) {
        return transport.send(server, address, ch -> charged(request, ch, sinceNanos));
    }

    /**
     * {@code request} as it leaves on connection {@code ch} ({@link ChainBudgets#charged}), with the
     * connection's one-way time ({@link NodeTransport#oneWayNanos}, half its smoothed round trip and
     * deviation).
     */
    private ChainRequest charged(ChainRequest request, Channel ch, long sinceNanos) {
        long oneWay = transport.oneWayNanos(ch); // (keeps the estimate fresh, deadline or not)
        return budgets.charged(request, oneWay, sinceNanos);
    }

    /**
     * What this node has measured of its link to server {@code server} (its first endpoint): the
     * shortest recent round trip ({@link io.rpcc.core.internal.transport.RoundTripTime#minNanos}: the
     * link's, without the queues that lengthen some) and the throughput of its connection there,
     * each -1 if not measured yet.
     * Connects there if it has no connection (the caller is about to send there, or may be); until
     * the connection is up, both are -1.
     *
     * @param roundTripNanos the connection's shortest recent round trip, or -1
     * @param bytesPerSecond the throughput this node gets sending on it, or -1
     */
    public record Link(long roundTripNanos, long bytesPerSecond) {
        /** Nothing measured. */
        public static final Link UNKNOWN = new Link(-1, -1);

        /** Half the round trip, or -1. */
        public long oneWayNanos() {
            return roundTripNanos < 0 ? -1 : roundTripNanos / 2;
        }
    }

    /** See {@link Link}. */
    public Link link(String server) {
        try {
            List<InetSocketAddress> endpoints = resolver.resolveAll(server);
            if (endpoints.isEmpty()) {
                return Link.UNKNOWN;
            }
            CompletableFuture<Channel> ch = transport.connect(server, endpoints.getFirst());
            if (!ch.isDone() || ch.isCompletedExceptionally()) {
                return Link.UNKNOWN;
            }
            Channel c = ch.join();
            transport.oneWayNanos(c); // (keeps the round-trip estimate fresh)
            return new Link(transport.minRoundTripNanos(c), transport.bytesPerSecond(c));
        } catch (RuntimeException e) {
            return Link.UNKNOWN;
        }
    }

    /** Sends to {@code order[i]}, and on to the next endpoint if that one cannot take the hop. */
    private CompletableFuture<Void> tryEndpoints(String server, ChainRequest request, List<InetSocketAddress> order,
                                                 int i, List<String> failures, long sinceNanos,
                                                 Failovers failovers) {
        InetSocketAddress endpoint = order.get(i);
        return sendRequest(server, endpoint, request, sinceNanos).handle((v, e) -> {
            if (e == null) {
                ejection.succeeded(endpoint);
                return CompletableFuture.<Void>completedFuture(null);
            }
            Throwable cause = Node.unwrap(e);
            if (!(cause instanceof HopFailure f) || !f.unreachable()) {
                return CompletableFuture.<Void>failedFuture(cause); // (the request itself is at fault: no endpoint takes it)
            }
            boolean last = i == order.size() - 1;
            ejection.failed(endpoint, System.nanoTime(), !last);
            failures.add(endpoint + ": " + f.getMessage());
            if (!last) {
                log.debug("node '{}' fails over from {} to {} for server '{}': {}", nodeName, endpoint, order.get(i + 1),
                        server, f.getMessage());
                try {
                    failovers.failedOver(server, endpoint, order.get(i + 1), f);
                } catch (RuntimeException | Error x) {
                    log.warn("node '{}': a listener of failovers {} threw; ignored", nodeName, failovers, x);
                }
                return tryEndpoints(server, request, order, i + 1, failures, sinceNanos, failovers);
            }
            return CompletableFuture.<Void>failedFuture(new HopFailure(f.code(), "cannot reach server '" + server
                    + "' at any of its " + order.size() + " endpoints (tried in this order): "
                    + String.join("; ", failures) + "; check that one of them runs and is reachable from '" + nodeName
                    + "', or give the name another endpoint", f));
        }).thenCompose(x -> x);
    }

    /** The failover of this node's names with several endpoints (counts). */
    public OutlierEjection ejection() {
        return ejection;
    }

    /**
     * Where the results, errors and replies of {@code h} go (its reply-to node): through this node's
     * resolver if it knows that node's name (so that a testbed or a NAT can route the way back), else
     * at the address the header gives.
     */
    public InetSocketAddress replyAddress(ChainHeader h) {
        return addressOf(h.replyTo());
    }

    /** The address this node's resolver gives for {@code server}, if any (empty if resolving fails). */
    public java.util.Optional<InetSocketAddress> resolve(String server) {
        try {
            return resolver.resolve(server);
        } catch (RuntimeException e) {
            return java.util.Optional.empty();
        }
    }

    /**
     * Where {@code to} is reached: at the address this node's resolver gives for its name, else at the
     * host and port it carries.
     */
    public InetSocketAddress addressOf(NodeAddress to) {
        try {
            var known = resolver.resolve(to.node());
            if (known.isPresent()) {
                return known.get();
            }
        } catch (RuntimeException e) {
            // fall back to the advertised address
        }
        InetSocketAddress kept = literalAddresses.get(to);
        if (kept != null) {
            return kept;
        }
        InetSocketAddress made = new InetSocketAddress(to.host(), to.port());
        if (isIpLiteral(to.host()) && !made.isUnresolved()) {
            if (literalAddresses.size() >= MAX_LITERAL_ADDRESSES) {
                literalAddresses.clear();
            }
            literalAddresses.put(to, made);
        }
        return made;
    }

    /**
     * Whether {@code host} is an IP address written out (IPv4's digits and dots, or IPv6's colons,
     * which no host name has), which names the same address whenever it is read.
     */
    static boolean isIpLiteral(String host) {
        if (host == null || host.isEmpty()) {
            return false;
        }
        if (host.indexOf(':') >= 0) {
            return true;
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if ((c < '0' || c > '9') && c != '.') {
                return false;
            }
        }
        return true;
    }
}
