package io.rpcc.client;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.HopTiming;
import io.rpcc.core.Metadata;
import io.rpcc.core.NameResolver;
import io.rpcc.core.runtime.NodeBuilder;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.chain.BuilderAccess;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.chain.RequestHandler;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainKey;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal server for the client's tests: a core {@link Node} whose {@link RequestHandler} runs
 * one-hop requests against a map of services and sends the result (or a service-function error)
 * straight to the chain's reply-to node, with the hop's whole credit; a cancel interrupts the
 * chain's hop running here. rpcc-client cannot use
 * rpcc-server in its tests (rpcc-server's tests use rpcc-client), so this plays the server's part
 * on a real socket; it does not run chaining functions (clients in interactive mode do) and sends
 * no partial replies.
 */
final class CoreServer implements RequestHandler, AutoCloseable {

    /** A service: what it returns for {@code params}; it may throw, or block (cancellation interrupts it). */
    @FunctionalInterface
    interface Service {
        Object apply(Object params, Metadata metadata) throws Exception;
    }

    /** What a request carried, as the server saw it. */
    record Seen(String serviceFunction, Object params, Metadata metadata, long budgetNanos, int hop) {
    }

    private final Node node;
    private final Map<String, Service> services = new ConcurrentHashMap<>();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final AtomicInteger interrupted = new AtomicInteger();
    private final Map<String, HopControl> running = new ConcurrentHashMap<>(); // by origin#chainId
    private final InetSocketAddress address;

    /** A started server named {@code name}, resolving reply-to nodes with {@code resolver}. */
    CoreServer(String name, NameResolver resolver, TypeRegistry types) {
        this.node = new Node(BuilderAccess.settingsOf(new Builder(name).resolver(resolver).types(types)));
        this.address = node.start(this);
    }

    /** Hosts {@code service} as {@code name}. */
    CoreServer service(String name, Service service) {
        services.put(name, service);
        return this;
    }

    InetSocketAddress address() {
        return address;
    }

    String name() {
        return node.name();
    }

    /** The requests that reached this server, in arrival order. */
    List<Seen> seen() {
        return seen;
    }

    /** Services that were interrupted (their chain was cancelled while they ran). */
    int interrupted() {
        return interrupted.get();
    }

    @Override
    public void close() {
        node.close();
    }

    @Override
    public void onRequest(ChainRequest request, long arrivedNanos) {
        Node at = node;
        ChainHeader h = request.header();
        HopControl control = new HopControl(arrivedNanos, h.budgetNanos());
        String key = h.origin() + "#" + h.chainId();
        running.put(key, control);
        at.executor().execute(() -> {
            seen.add(new Seen(h.serviceFunction(), request.params(), h.metadata(), h.budgetNanos(), h.hop()));
            List<String> path = at.pathThrough(h);
            long start = System.nanoTime();
            Object frame;
            try (var working = control.enter()) {
                Service service = services.get(h.serviceFunction());
                if (service == null) {
                    throw new IllegalArgumentException("no service '" + h.serviceFunction() + "' at '" + at.name() + "'");
                }
                Object value = service.apply(request.params(), h.metadata());
                HopTiming timing = new HopTiming(h.hop(), at.name(), h.serviceFunction(), start - arrivedNanos,
                        System.nanoTime() - start, 0, 0, at.name());
                frame = new ChainResultFrame(new ChainKey(h.chainId(), h.secret()), path, h.console(),
                        List.of(timing), value, h.credit(), null);
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    interrupted.incrementAndGet();
                }
                frame = new ChainErrorFrame(h.chainId(), h.secret(), ChainErrorCode.SERVICE_FUNCTION_FAILED,
                        new ChainFailure(e.getClass().getName(), "service function '" + h.serviceFunction()
                                + "' threw " + e, at.name(), h.hop(), path, List.of(), h.console(), List.of()),
                        h.credit());
            }
            if (!control.isCancelled()) {
                at.transport().send(h.replyTo().node(), at.replyAddress(h), frame);
            }
            running.remove(key, control);
        });
    }

    @Override
    public boolean cancel(CancelFrame cancel) {
        HopControl control = running.get(cancel.origin() + "#" + cancel.chainId());
        if (control != null) {
            control.cancel();
        }
        return true;
    }

    @Override
    public void refuse(ChainHeader h, HopFailure why) {
        node.transport().send(h.replyTo().node(), node.replyAddress(h), new ChainErrorFrame(h.chainId(), h.secret(),
                why.code(), new ChainFailure(why.exceptionName(), why.getMessage(), node.name(), h.hop(),
                node.pathThrough(h), List.of(), h.console(), List.of()), h.credit()));
    }

    @Override
    public boolean grant(WindowUpdateFrame grant) {
        return false; // no partial replies, no reply streams
    }

    @Override
    public int hopsInFlight() {
        return running.size();
    }

    @Override
    public CompletableFuture<Void> abandonHops() {
        return CompletableFuture.completedFuture(null);
    }

    /** The node builder's settings, without a facade. */
    private static final class Builder extends NodeBuilder<Builder> {
        Builder(String name) {
            super(name);
            replyWriteTimeout(Duration.ofSeconds(5));
        }
    }
}
