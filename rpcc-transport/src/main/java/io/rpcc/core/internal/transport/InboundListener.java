package io.rpcc.core.internal.transport;

import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainRequest;
import io.netty.channel.Channel;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import io.rpcc.core.spi.EngineSpi;

/**
 * Receives the chain frames that arrive at a node. Called on an event loop: implementations hand
 * work to other threads and return at once. Each frame comes with the connection it was read from:
 * a frame the listener refuses (a forged one) is counted with it ({@link Refusals#countFrame}), and
 * held against that connection's allowance of bad frames.
 */
@EngineSpi
public interface InboundListener {
    /** A hop to run. */
    void onRequest(ChainRequest request);

    /**
     * A hop to run, read from connection {@code from} (whose peer, {@link NodeTransport#peerOf}, the
     * node's per-peer bounds charge it to); by default {@link #onRequest(ChainRequest)}.
     */
    default void onRequest(ChainRequest request, Channel from) {
        onRequest(request);
    }

    /** The result of a chain this node started, read from connection {@code from}. */
    void onResult(ChainResultFrame result, Channel from);

    /** The failure of a chain this node started (or passing through it), read from connection {@code from}. */
    void onError(ChainErrorFrame error, Channel from);

    /** A partial reply for a chain this node started, on connection {@code from}. */
    void onReply(ReplyFrame reply, Channel from);

    /** A hop of a chain this node started returns its credit; read from connection {@code from}. */
    void onQuiet(QuietFrame quiet, Channel from);

    /**
     * Reply flow control: room granted to a reply stream of this node, or given back (and asked for)
     * by a reply stream of a chain this node started; read from {@code from}, where the answer goes.
     */
    void onWindowUpdate(WindowUpdateFrame update, Channel from);
    /** The originator of a chain cancelled it (the notice comes from the node before this one on its trail). */
    void onCancel(CancelFrame cancel);

    /** A cancel read from connection {@code from}; by default {@link #onCancel(CancelFrame)}. */
    default void onCancel(CancelFrame cancel, Channel from) {
        onCancel(cancel);
    }

    /**
     * A heartbeat of a chain this node started, read from connection {@code from}: the chain is alive
     * on the branch it names.
     */
    void onHeartbeat(HeartbeatFrame heartbeat, Channel from);

    /**
     * A frame of an atomic chain's commit protocol ({@link TxFrames}), read from connection
     * {@code from}: a VOTE, DECIDE_ACK or WOUND for a chain this node started, or a DECIDE for a
     * transaction this node takes part in. By default ignored (a node that runs no atomic chains).
     */
    default void onTransaction(TxFrames.TxFrame frame, Channel from) {
    }
}
