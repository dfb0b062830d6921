package io.rpcc.core.internal.transport;

import io.rpcc.core.spi.EngineSpi;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;

/**
 * Warnings about what peers send, at most one per remote address per interval: a peer that floods
 * a node with garbage must not flood its log too. The warnings suppressed in between are counted
 * in the next one. Remembers a bounded number of addresses.
 */
@EngineSpi
public final class RateLimitedWarnings {
    private static final int MAX_ADDRESSES = 4096;

    private final Logger log;
    private final long intervalNanos;
    private final ConcurrentMap<Object, Slot> slots = new ConcurrentHashMap<>();

    private static final class Slot {
        long lastNanos;
        long suppressed;
    }

    /** Warnings to {@code log}, at most one per remote address per {@code intervalNanos}. */
    public RateLimitedWarnings(Logger log, long intervalNanos) {
        this.log = log;
        this.intervalNanos = intervalNanos;
    }

    /** Logs {@code message} (an SLF4J format with {@code args}) as a WARN unless {@code peer} was warned about lately. */
    public void warn(SocketAddress peer, String message, Object... args) {
        if (!log.isWarnEnabled()) {
            return;
        }
        Object key = peer instanceof InetSocketAddress isa && isa.getAddress() != null ? isa.getAddress() : peer;
        if (key == null) {
            key = InetAddress.getLoopbackAddress();
        }
        if (slots.size() >= MAX_ADDRESSES) {
            slots.clear();
        }
        Slot slot = slots.computeIfAbsent(key, k -> new Slot());
        long suppressed;
        synchronized (slot) {
            long now = System.nanoTime();
            if (slot.lastNanos != 0 && now - slot.lastNanos < intervalNanos) {
                slot.suppressed++;
                return;
            }
            slot.lastNanos = now;
            suppressed = slot.suppressed;
            slot.suppressed = 0;
        }
        if (suppressed > 0) {
            log.warn(message + " (" + suppressed + " similar warnings about " + key + " suppressed)", args);
        } else {
            log.warn(message, args);
        }
    }
}
