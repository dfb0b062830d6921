package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops reading the requests of a peer that does not read what this node sends it. While more than
 * a threshold waits to be written on any connection this node sends to peer node N on, the
 * connections on which N sent requests are not read (Netty's auto-read is off: N's further frames
 * wait in the network, where N's own buffers fill); reading resumes when every connection to N is
 * under the threshold again. So a peer that sends requests and never reads their results gets no
 * more of them run, and the node's memory for it stays bounded.
 *
 * <p>Peers are told apart by node name: the connections this node sends to N on (opened by it to
 * N's address, or authenticated by TLS) and the connections whose HELLO named N; never by address,
 * so other nodes behind the same address (loopback, NAT) are not paused. Connections that carried no
 * request (a client's, where results arrive) are never paused. The threshold is high (half the
 * write-queue limit by default) so that two busy nodes rarely stop reading each other at once; if
 * they do, neither's queue drains and {@link WriteStallWatch} closes the stalled connection. A
 * connection that carries both ways (one TLS authenticated and this node also sends on) is never
 * paused: not reading it would also stop reading the peer's answers, and two such peers would stall
 * each other; a peer that does not read such a connection meets the write-queue limit and the stall
 * timeout instead.
 *
 * <p>Thread-safe; called from event loops and from the threads that write. Nothing here blocks:
 * each peer's state is guarded by a lock held only to compare queue sizes and flip auto-read.
 */
final class ReadPauses {
    private static final Logger log = LoggerFactory.getLogger(ReadPauses.class);
    private static final AttributeKey<Peer> SENDS_TO = AttributeKey.valueOf("rpcc.sendsTo");
    private static final AttributeKey<Peer> REQUESTS_FROM = AttributeKey.valueOf("rpcc.requestsFrom");

    private final String nodeName;
    private final long threshold;
    private final ConcurrentMap<String, Peer> peers = new ConcurrentHashMap<>();

    /** One peer node's connections, both ways; guarded by its own monitor. */
    private static final class Peer {
        final String name;
        final Set<Channel> sendingTo = new HashSet<>();
        final Set<Channel> requestsFrom = new HashSet<>();
        volatile boolean paused;
        boolean retired;

        Peer(String name) {
            this.name = name;
        }
    }

    /** Pauses for node {@code nodeName} above {@code threshold} bytes queued to a peer. */
    ReadPauses(String nodeName, long threshold) {
        this.nodeName = nodeName;
        this.threshold = threshold;
    }

    /** {@code ch} is a connection this node sends to node {@code peer} on: watched until it closes. */
    void sendingTo(String peer, Channel ch) {
        if (ch.attr(SENDS_TO).get() == null) {
            join(peer, ch, true);
        }
    }

    /**
     * {@code ch}, whose HELLO named node {@code peer}, carried a request: from now on, it is paused
     * while {@code peer} does not read (at once if it does not read now).
     */
    void requestFrom(String peer, Channel ch) {
        if (ch.attr(REQUESTS_FROM).get() == null) {
            join(peer, ch, false);
        }
    }

    /** A frame was queued on {@code ch}: pauses its peer's requests if more than the threshold waits there now. */
    void queued(Channel ch) {
        Peer p = ch.attr(SENDS_TO).get();
        if (p != null && !p.paused && pending(ch) > threshold) {
            update(p);
        }
    }

    /** Some of what waited on {@code ch} was written: resumes its peer's requests if every connection to it is under. */
    void drained(Channel ch) {
        Peer p = ch.attr(SENDS_TO).get();
        if (p != null && p.paused) {
            update(p);
        }
    }

    private void join(String name, Channel ch, boolean sending) {
        while (true) {
            Peer p = peers.computeIfAbsent(name, Peer::new);
            synchronized (p) {
                if (p.retired) {
                    continue;
                }
                if (sending) {
                    if (ch.attr(SENDS_TO).setIfAbsent(p) != null) {
                        return;
                    }
                    p.sendingTo.add(ch);
                    ch.config().setAutoRead(true); // both ways now: never paused
                } else {
                    if (ch.attr(REQUESTS_FROM).setIfAbsent(p) != null) {
                        return;
                    }
                    p.requestsFrom.add(ch);
                    if (p.paused && !bothWays(ch)) {
                        ch.config().setAutoRead(false);
                    }
                }
            }
            ch.closeFuture().addListener(f -> leave(p, ch, sending));
            if (sending) {
                queued(ch);
            }
            return;
        }
    }

    private void leave(Peer p, Channel ch, boolean sending) {
        synchronized (p) {
            (sending ? p.sendingTo : p.requestsFrom).remove(ch);
            if (p.sendingTo.isEmpty() && p.requestsFrom.isEmpty()) {
                p.retired = true;
                peers.remove(p.name, p);
                return;
            }
        }
        if (sending) { // what waited on it is gone
            drained(ch);
        }
    }

    /** Pauses or resumes {@code p}'s requests, as the queues to it are now. */
    private void update(Peer p) {
        synchronized (p) {
            long most = 0;
            for (Channel c : p.sendingTo) {
                most = Math.max(most, pending(c));
            }
            boolean pause = most > threshold;
            if (pause == p.paused) {
                return;
            }
            p.paused = pause;
            for (Channel c : p.requestsFrom) {
                if (!bothWays(c)) {
                    c.config().setAutoRead(!pause);
                }
            }
            if (pause) {
                // a write that completed while this was decided saw no pause to lift: look again after it
                for (Channel c : p.sendingTo) {
                    c.eventLoop().execute(() -> drained(c));
                }
                log.debug("node '{}' stops reading the requests of '{}': {} bytes wait to be written to it (limit {})",
                        nodeName, p.name, most, threshold);
            } else {
                log.debug("node '{}' reads the requests of '{}' again", nodeName, p.name);
            }
        }
    }

    /** Whether this node also sends to the peer on {@code ch}, which then must be read whatever happens. */
    private static boolean bothWays(Channel ch) {
        return ch.attr(SENDS_TO).get() != null;
    }

    private static long pending(Channel ch) {
        return WriteQueue.pending(ch);
    }
}
