package io.rpcc.server.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.VirtualConsole;
import io.rpcc.core.internal.chain.HopContext;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.chain.HopLocation;
import io.rpcc.core.internal.chain.Replies;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.LocatedFailure;
import io.rpcc.server.HopDecorator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's {@link HopDecorator}s: which requests they decorate (the hops of {@link HopKind#decorated()}
 * kinds), a {@link HopWatch} for each, and the decorators run on a hop as it starts, the first
 * outermost. A decorator that throws rejects the hop ({@link ChainErrorCode#HOP_REJECTED}).
 */
final class HopDecorators {
    private static final Logger log = LoggerFactory.getLogger(HopDecorators.class);

    private final String nodeName;
    private final List<HopDecorator> decorators;
    private final Set<String> services;
    private final Executor executor;

    /**
     * {@code decorators} at node {@code nodeName}, which hosts {@code services}, whose listeners are
     * told how hops ended on {@code executor}.
     */
    HopDecorators(String nodeName, List<HopDecorator> decorators, Set<String> services, Executor executor) {
        this.nodeName = nodeName;
        this.decorators = List.copyOf(decorators);
        this.services = Set.copyOf(services);
        this.executor = executor;
    }

    /** A watch for a request of {@code kind} that starts here: {@link HopWatch#NONE} unless it is decorated. */
    HopWatch watch(HopKind kind) {
        return decorators.isEmpty() || kind.decorated() == null ? HopWatch.NONE : new HopWatch(executor, nodeName);
    }

    /**
     * Runs the decorators on {@code hop}, which starts on this thread, adding their listeners to its
     * watch; throws the {@link HopFailure} that rejects the hop if one throws (or returns {@code null}).
     */
    void decorate(HopState hop) {
        if (hop.watch() != HopWatch.NONE) {
            decorate(hop.watch(), new HopDecorator.Start(hop.kind().decorated(), hop.context(nodeName, "decorator"),
                    serviceFunction(hop.kind(), hop.header().serviceFunction(), hop)));
        }
    }

    private void decorate(HopWatch watch, HopDecorator.Start start) {
        try (var scope = start.context().push()) {
            for (HopDecorator decorator : decorators) {
                HopDecorator.Listener listener;
                try {
                    listener = decorator.decorate(start);
                } catch (HopRejectedException r) {
                    throw HopInterceptors.rejected(r);
                } catch (RuntimeException | Error e) {
                    throw new HopFailure(ChainErrorCode.HOP_REJECTED, "hop decorator " + decorator.getClass().getName()
                            + " at '" + nodeName + "' threw " + e, e);
                }
                if (listener == null) {
                    throw new HopFailure(ChainErrorCode.HOP_REJECTED, "hop decorator " + decorator.getClass().getName()
                            + " at '" + nodeName + "' returned no listener");
                }
                watch.listen(listener);
            }
        }
    }

    /**
     * The watch of a request of {@code h}, of {@code kind}, refused here before it ran with
     * {@code refusal}: decorated, on this thread (a decorator that throws is logged: the hop is
     * refused anyway), and settled; the caller tracks the report, then calls {@link HopWatch#ran}.
     */
    HopWatch refused(ChainHeader h, HopKind kind, LocatedFailure refusal) {
        HopWatch watch = watch(kind);
        if (watch == HopWatch.NONE) {
            return watch;
        }
        watch.refused(refusal);
        HopLocation at = new HopLocation(h.origin() + "#" + h.chainId(), h.origin(), h.hop(), h.branch(), nodeName);
        HopContext context = new HopContext(at, new VirtualConsole(h.hop(), nodeName, "decorator",
                new CopyOnWriteArrayList<>(h.console())), REFUSED, h.metadata(), new HopControl(System.nanoTime(),
                h.budgetNanos()));
        try {
            decorate(watch, new HopDecorator.Start(kind.decorated(), context,
                    serviceFunction(kind, h.serviceFunction(), null)));
        } catch (HopFailure f) {
            log.warn("a hop decorator at '{}' failed on hop {} of chain {}, which was refused anyway: {}", nodeName,
                    h.hop(), at.chainId(), f.getMessage());
        }
        return watch;
    }

    /** The replies of a refused hop: it sends none. */
    private static final Replies REFUSED = new Replies() {
        @Override
        public void preturn(Object reply) {
            throw new IllegalStateException("the hop was refused: it sends no partial replies");
        }

        @Override
        public void raise() {
            throw new IllegalStateException("the hop was refused: it starts no work");
        }

        @Override
        public void lower() {
        }

        @Override
        public void failed(Throwable error) {
        }
    };

    /**
     * The application's service function a hop of {@code kind} goes on from: for a service hop the
     * one its request names, {@code requested}, if this server hosts it (a name a peer made up never
     * reaches a decorator, whose meters would grow with each one); for a proxied hop the one that ran at
     * the server that delegated (the last of {@code hop}'s timings, when it ran); else {@code null}.
     */
    private @Nullable String serviceFunction(HopKind kind, String requested, @Nullable HopState hop) {
        return switch (kind) {
            case SERVICE -> services.contains(requested) ? requested : null;
            case PROXY -> hop == null || hop.timings().isEmpty() ? null : hop.timings().getLast().serviceFunction();
            default -> null;
        };
    }
}
