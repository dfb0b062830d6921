package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.rpcc.core.Refusal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The inbound connections a node holds, in total and per remote IP address, within its
 * {@link WireLimits}. An address is forgotten when its last connection closes.
 */
final class InboundConnections {
    private final WireLimits limits;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

    InboundConnections(WireLimits limits) {
        this.limits = limits;
    }

    /**
     * Counts {@code ch} in, until it closes; or returns why it must be refused (and counts nothing).
     */
    Refusal admit(Channel ch) {
        if (total.incrementAndGet() > limits.maxInboundConnections()) {
            total.decrementAndGet();
            return Refusal.TOO_MANY_CONNECTIONS;
        }
        InetAddress address = ch.remoteAddress() instanceof InetSocketAddress isa ? isa.getAddress() : null;
        if (address != null) {
            boolean[] over = new boolean[1];
            perAddress.compute(address, (a, n) -> {
                int next = n == null ? 1 : n + 1;
                over[0] = next > limits.maxInboundConnectionsPerAddress();
                return over[0] ? n : next;
            });
            if (over[0]) {
                total.decrementAndGet();
                return Refusal.TOO_MANY_CONNECTIONS_FROM_ADDRESS;
            }
        }
        ch.closeFuture().addListener(f -> {
            total.decrementAndGet();
            if (address != null) {
                perAddress.computeIfPresent(address, (a, n) -> n > 1 ? n - 1 : null);
            }
        });
        return null;
    }
}
