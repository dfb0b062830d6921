package io.rpcc.server.internal;

import io.rpcc.core.ChainCaller;
import io.rpcc.core.IsolationLevel;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.internal.chain.FailureLog;
import io.rpcc.core.internal.chain.HopControl;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The hops a server is running, from their arrival until they are done (service and chaining
 * functions returned, nothing they started still runs or sends replies, and the frames that end them
 * are written: see {@link HandOffs}): what a shutdown waits for, and what a close abandons.
 */
final class RunningHops {
    /**
     * One hop: its header and its replies (which also decide who hands its credit over). Equal only
     * to itself: the set holds hops by identity, so adding and removing one never hashes its header.
     */
    static final class Hop {
        private final ChainHeader header;
        private final HopReplies replies;
        private final HopControl control;
        private final String peer;
        private final Asker asker;

        /** The data stream the hop's service function returned for the next hop, until it is sent. */
        private final java.util.concurrent.atomic.AtomicReference<io.rpcc.core.internal.transport.OutboundStream> output =
                new java.util.concurrent.atomic.AtomicReference<>();

        Hop(ChainHeader header, HopReplies replies, HopControl control, String peer, Asker asker) {
            this.header = header;
            this.replies = replies;
            this.control = control;
            this.peer = peer;
            this.asker = asker;
        }

        private volatile boolean keepsInput;

        /**
         * A hash from the hop's chain and number (equality stays identity): an entry's first identity
         * hash is a call into the VM, and every hop is put in a set here, and every forward too.
         */
        @Override
        public int hashCode() {
            return (header.origin().hashCode() * 31 + Long.hashCode(header.chainId())) * 31 + header.hop();
        }

        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        /** The hop's data stream outlives its service function: what it returned streams it on. */
        void keepInput() {
            keepsInput = true;
        }

        /** Whether the hop's data stream is dropped when its stream on ends, not when the hop does. */
        boolean keepsInput() {
            return keepsInput;
        }

        /** The hop's service function returned {@code data} to stream to the next hop. */
        void streamOut(io.rpcc.core.internal.transport.OutboundStream data) {
            io.rpcc.core.internal.transport.OutboundStream before = output.getAndSet(data);
            if (before != null) {
                before.discard("replaced by another stream of the same hop");
            }
        }

        /** The stream for the next hop, taken (to send it, or to drop it); {@code null} if none. */
        io.rpcc.core.internal.transport.OutboundStream takeOutput() {
            return output.getAndSet(null);
        }

        /** Who asked for the hop, and how isolated the server's policy runs it. */
        Asker asker() {
            return asker;
        }

        /** Who sent the hop's request ({@code NodeTransport.peerOf}): its work counts in that peer's shares. */
        String peer() {
            return peer;
        }

        HopControl control() {
            return control;
        }

        ChainHeader header() {
            return header;
        }

        HopReplies replies() {
            return replies;
        }
    }

    /**
     * Who asked for a hop and how isolated it runs (the server's chain policy's answer).
     *
     * @param caller the chain's originator, the previous hop and the sub-chain's creator
     * @param isolation how isolated the hop's functions run
     */
    record Asker(ChainCaller caller, IsolationLevel isolation) {
    }

    private final Set<Hop> hops = ConcurrentHashMap.newKeySet();
    /** Chains handed on from here whose request is not written yet (it may wait for a connection). */
    private final Set<Hop> handingOn = ConcurrentHashMap.newKeySet();
    private final Node node;
    private final ReplyStreams streams;
    private final ChainTrails trails;
    private final FailureLog failures;
    private final HopReports reports;
    private final HandOffs handOffs;

    /**
     * The hops running at {@code node}, whose reply streams are in {@code streams}, which leave
     * {@code trails} when they are quiet, log lost replies to {@code failures}, are reported
     * abandoned through {@code reports} and count the frames that end them in {@code handOffs}.
     */
    RunningHops(Node node, ReplyStreams streams, ChainTrails trails, FailureLog failures, HopReports reports,
                HandOffs handOffs) {
        this.node = node;
        this.streams = streams;
        this.trails = trails;
        this.failures = failures;
        this.reports = reports;
        this.handOffs = handOffs;
    }

    /**
     * A hop arrived from {@code peer}; it counts until {@link #ran} has been called and its replies
     * are quiet.
     */
    Hop arrived(ChainHeader header, HopControl control, String peer, Asker asker) {
        Hop hop = new Hop(header, new HopReplies(node, streams, trails, failures, handOffs, header,
                control), control, peer, asker);
        hops.add(hop);
        return hop;
    }

    /**
     * The chain of the hop that {@code control} controls leaves here with {@code onward} (the next
     * hop's header), sent by {@code sent}: until it is written (a new connection may first need its
     * handshake, a wide-area round trip), this node keeps sending the chain's heartbeats, as the
     * hop's, under the onward header's hop number, branch and siblings. Without this a chain waiting
     * for a connection would go silent and could be declared broken.
     */
    void handingOn(ChainHeader onward, HopControl control, CompletableFuture<?> sent) {
        if (sent.isDone()) {
            return;
        }
        Hop entry = new Hop(onward, null, control, NodeTransport.LOCAL_PEER,
                new Asker(new ChainCaller(onward.origin(), false, NodeTransport.LOCAL_PEER, null), IsolationLevel.IN_PROCESS));
        handingOn.add(entry);
        sent.whenComplete((v, e) -> handingOn.remove(entry));
    }

    /** The hop's own code returned (its thread); it is done once its replies are quiet too. */
    void ran(Hop hop) {
        hop.replies().whenQuiet().whenComplete((v, e) -> {
            hops.remove(hop);
            node.inFlightChanged(); // a draining server looks again
        });
    }

    /**
     * Sends, at {@code nowNanos}, the heartbeats due for the hops that hold their chain here (arrived,
     * not handed on, not cancelled), and for those that handed it on but still owe it partial replies
     * (work they started runs on: their share of the chain's credit is here until their QUIET), and
     * starts their next interval (paper 3.9).
     */
    void sendDueHeartbeats(long nowNanos) {
        for (Hop onward : handingOn) { // the chain is still here until its request is out
            HopControl control = onward.control();
            if (control.heartbeatDue(nowNanos) && !control.isCancelled()) {
                ChainHeader h = onward.header();
                control.heartbeatSent(nowNanos);
                node.sendHeartbeat(h, h.hop(), h.branch(), HeartbeatFrame.siblingsOf(h.branch(), h.returnStack()));
            }
        }
        for (Hop hop : hops) {
            HopControl control = hop.control();
            HopReplies replies = hop.replies();
            if (control.heartbeatDue(nowNanos) && !control.isCancelled() && !replies.abandoned()
                    && !replies.whenQuiet().isDone()) {
                ChainHeader h = hop.header();
                control.heartbeatSent(nowNanos);
                node.sendHeartbeat(h, h.hop(), h.branch(), HeartbeatFrame.siblingsOf(h.branch(), h.returnStack()),
                        replies.handedOver());
            }
        }
    }

    /**
     * Hops arrived and not done: running, or not quiet yet, or with a frame that ends one (result,
     * failure, next hop's request, QUIET) not written yet.
     */
    int size() {
        return hops.size() + handOffs.size();
    }

    /**
     * Reports every hop that has not handed its chain on yet to its originator as failed with
     * {@link ChainErrorCode#NODE_CLOSED}, with the hop's credit; completes when the reports are written
     * or have failed.
     */
    CompletableFuture<Void> abandonAll() {
        List<CompletableFuture<Void>> written = new ArrayList<>();
        for (Hop hop : hops) {
            ChainHeader h = hop.header();
            Credit credit = hop.replies().abandon(h.credit());
            if (credit != null) {
                HopFailure f = new HopFailure(ChainErrorCode.NODE_CLOSED, "server '" + node.name() + "' was closed while"
                        + " hop " + h.hop() + " ('" + h.serviceFunction() + "') ran there; the hop was abandoned and may"
                        + " have run in part");
                written.add(reports.sendFailure(h, f, node.pathThrough(h), h.console(), h.timings(), credit)
                        .exceptionally(e -> null));
            }
            hops.remove(hop);
        }
        return CompletableFuture.allOf(written.toArray(CompletableFuture[]::new));
    }
}
