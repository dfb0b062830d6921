package io.rpcc.core.internal.chain;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.NodeAddress;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The REQUESTs of one connection whose addresses the resolver must vouch for (see
 * {@link RequestAdmission}): at most {@link #MAX_CHECKING} are checked at once on the node's
 * executor, at most {@link #MAX_WAITING} more wait their turn in arrival order, and any further one is
 * refused at once (so a flood of them cannot queue unbounded work, and its refusals cut it off). The
 * addresses a check vouched for are remembered for the connection (the last
 * {@link #MAX_REMEMBERED}), so that its later REQUESTs naming them, the waiting ones included, are
 * taken without another look-up: a client vouched for only by the host name it advertises pays one
 * look-up, not one per chain. Thread-safe (the event loop adds, executor threads finish).
 */
final class ConnectionVouching {
    /** REQUESTs of one connection being checked with the resolver at once. */
    static final int MAX_CHECKING = 16;
    /** REQUESTs of one connection waiting for a check, beyond those being checked. */
    static final int MAX_WAITING = 1024;
    /** Addresses a connection's checks vouched for, remembered (the most recent). */
    static final int MAX_REMEMBERED = 64;

    private static final AttributeKey<ConnectionVouching> KEY = AttributeKey.valueOf("rpcc.connectionVouching");

    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private final Map<NodeAddress, Boolean> vouched = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<NodeAddress, Boolean> eldest) {
            return size() > MAX_REMEMBERED;
        }
    };
    private int checking;

    /** The state of connection {@code ch}, made on first use. */
    static ConnectionVouching of(Channel ch) {
        ConnectionVouching v = ch.attr(KEY).get();
        if (v == null) {
            ConnectionVouching made = new ConnectionVouching();
            v = ch.attr(KEY).setIfAbsent(made);
            if (v == null) {
                v = made;
            }
        }
        return v;
    }

    /** Whether a check on this connection already vouched for every address {@code h} names. */
    synchronized boolean vouchedBefore(ChainHeader h) {
        for (NodeAddress a : OutboundVouching.named(h)) {
            if (vouched.get(a) == null) {
                return false;
            }
        }
        return true;
    }

    /** A check vouched for every address {@code h} names: remembers them. */
    synchronized void vouchedFor(ChainHeader h) {
        for (NodeAddress a : OutboundVouching.named(h)) {
            vouched.put(a, Boolean.TRUE);
        }
    }

    /**
     * Runs {@code check} through {@code run} now if fewer than {@link #MAX_CHECKING} run, else queues
     * it; {@code false} if the queue is full (then nothing runs: refuse the REQUEST). A check must call
     * {@link #finished} when it ends.
     */
    boolean submit(Runnable check, Consumer<Runnable> run) {
        synchronized (this) {
            if (checking >= MAX_CHECKING) {
                if (waiting.size() >= MAX_WAITING) {
                    return false;
                }
                waiting.add(check);
                return true;
            }
            checking++;
        }
        run.accept(check);
        return true;
    }

    /** A check ended: runs the next waiting one through {@code run}, if any. */
    void finished(Consumer<Runnable> run) {
        Runnable next;
        synchronized (this) {
            next = waiting.poll();
            if (next == null) {
                checking--;
                return;
            }
        }
        run.accept(next);
    }
}
