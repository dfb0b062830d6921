package io.rpcc.core.internal.chain;

import io.rpcc.core.NameResolver;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.wire.CancelFrame;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Passes the cancel of a chain on along its trail, to the node the chain went to from here: the
 * cancels of chains this node started, and those that pass through it.
 */
public final class CancelRelay {
    private static final Logger log = LoggerFactory.getLogger(CancelRelay.class);

    private final Executor executor;
    private final NameResolver resolver;
    private final NodeTransport transport;

    /**
     * A relay that resolves names with {@code resolver} on {@code executor} (a resolver may block) and
     * sends on {@code transport}.
     */
    public CancelRelay(Executor executor, NameResolver resolver, NodeTransport transport) {
        this.executor = executor;
        this.resolver = resolver;
        this.transport = transport;
    }

    /**
     * Sends {@code frame}, the cancel of a chain, to {@code next}, where the chain went from here;
     * resolves that name on the executor, never on an event loop.
     */
    public void pass(String next, CancelFrame frame) {
        executor.execute(() -> passOn(next, frame));
    }

    private void passOn(String next, CancelFrame frame) {
        InetSocketAddress address;
        try {
            address = resolver.resolve(next).orElse(null);
        } catch (RuntimeException e) {
            address = null;
        }
        if (address == null) {
            log.debug("cannot pass the cancel of chain {}#{} on to '{}': no address", frame.origin(), frame.chainId(), next);
            return;
        }
        transport.send(next, address, frame).whenComplete((v, e) -> {
            if (e != null) {
                log.debug("cannot pass the cancel of chain {}#{} on to '{}': {}", frame.origin(), frame.chainId(), next,
                        Node.unwrap(e).getMessage());
            }
        });
    }
}
