package io.rpcc.core.internal.chain;

import io.netty.channel.Channel;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import io.rpcc.core.spi.EngineSpi;
import java.util.concurrent.CompletableFuture;

/**
 * The server side of a node: runs the hops that arrive (a server's, in {@code rpcc-server}) and
 * holds what belongs to them. The {@link Node} receives every frame and hands this what concerns
 * chains passing through it: hop requests, the cancels that follow the chains' trails, and the room
 * originators grant to the reply streams of hops here. A node built without one (a client) refuses
 * every hop ({@link RefusingRequestHandler}).
 */
@EngineSpi
public interface RequestHandler {
    /**
     * Handles a hop request that arrived at {@code arrivedNanos} (from which its deadline counts);
     * called on an event loop, must return at once.
     */
    void onRequest(ChainRequest request, long arrivedNanos);

    /**
     * As {@link #onRequest(ChainRequest, long)}, for a request sent by {@code peer} (who sent it on
     * the connection it arrived on, {@link io.rpcc.core.internal.transport.NodeTransport#peerOf}): the
     * per-peer bounds of the tables it fills charge it to that peer.
     */
    default void onRequest(ChainRequest request, long arrivedNanos, String peer) {
        onRequest(request, arrivedNanos);
    }

    /**
     * Reports to its originator that the hop of {@code h} does not run here, for {@code why} (the
     * node is shutting down), with the hop's credit; called off the event loops.
     */
    void refuse(ChainHeader h, HopFailure why);

    /**
     * The originator granted room to the reply stream named by {@code grant} (chain, secret, hop);
     * {@code false} if no such stream is open here (the node gives the room back).
     */
    boolean grant(WindowUpdateFrame grant);

    /**
     * A cancel of a chain arrived (on an event loop): stops the chain's hops here and sends the
     * notice on where this node sent the chain; {@code false} if it is forged (not the chain's secret),
     * or, for a chain never seen here, over the sender's share of such cancels: either is held against
     * the connection it came on.
     */
    boolean cancel(CancelFrame cancel);

    /** As {@link #cancel(CancelFrame)}, for a cancel sent by {@code peer}. */
    default boolean cancel(CancelFrame cancel, String peer) {
        return cancel(cancel);
    }

    /** Hops that arrived and have not finished (their work and replies included); what a shutdown waits for. */
    int hopsInFlight();

    /**
     * The node is closing: reports every hop still running to its originator as failed (if the hop
     * has not handed the chain on yet). The future completes when those reports are written or have
     * failed.
     */
    CompletableFuture<Void> abandonHops();

    /**
     * Takes {@code frame} (a REPLY, QUIET, ERROR or WINDOW_UPDATE request that arrived on {@code from},
     * on an event loop) if it is for a sub-chain started here whose replies go through this node;
     * false if it is not (it is then for a chain this node originated).
     */
    default boolean relay(Object frame, Channel from) {
        return false;
    }

    /**
     * The originator of an atomic chain decided (a DECIDE that arrived on {@code from}, on an event
     * loop): this node, a participant, commits or aborts its part and answers with a DECIDE_ACK.
     * {@code false} if the frame is forged (not the secret of the transaction known here); a node that
     * runs no atomic chains takes none.
     */
    default boolean decide(TxFrames.Decide decide, Channel from) {
        return false;
    }

    /**
     * A peer participant of an atomic chain asks this node (a participant too, not the chain's
     * originator) for the transaction's decision ({@code query}, on an event loop; cooperative
     * termination): answered on {@code from} with the decision this node applied, if it remembers it
     * for that attempt and secret, else not at all. A node that runs no atomic chains answers nothing.
     */
    default void peerQuery(TxFrames.Query query, Channel from) {
    }

    /**
     * Sends, at {@code nowNanos}, the heartbeats that are due for the chains this node holds (hops
     * running here, branch outcomes waiting for their merge); called by the node's periodic sweep,
     * off the event loops.
     */
    default void sendDueHeartbeats(long nowNanos) {
    }
}
