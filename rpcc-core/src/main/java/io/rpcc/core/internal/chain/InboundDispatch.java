package io.rpcc.core.internal.chain;

import io.netty.channel.Channel;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.FailureFields;
import io.rpcc.core.Refusal;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.transport.InboundListener;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.WindowUpdateFrame;

/**
 * Where the frames a node's transport decodes go: hops to the server side ({@link RequestHandler}),
 * if {@link RequestAdmission} admits them, the frames of chains this node started to its
 * {@link ChainOriginator}, and the frames of chains that pass through to the server side, which
 * relays them. Called on event loops; returns at once.
 */
public final class InboundDispatch implements InboundListener {
    private final RequestAdmission admission;
    private final RequestHandler requests;
    private final ChainOriginator originator;
    private final NodeTransport transport;
    private final TypeRegistry types;

    /**
     * The dispatch of a node that takes the hops {@code admission} admits, hands them and relayed
     * frames to {@code requests} and the frames of its own chains to {@code originator}; counts
     * forged frames in the refusals of {@code transport} and returns reply-window room on it; names
     * the types of errors with {@code types}.
     */
    InboundDispatch(RequestAdmission admission, RequestHandler requests, ChainOriginator originator,
                    NodeTransport transport, TypeRegistry types) {
        this.admission = admission;
        this.requests = requests;
        this.originator = originator;
        this.transport = transport;
        this.types = types;
    }

    @Override
    public void onRequest(ChainRequest request) {
        onRequest(request, (Channel) null);
    }

    @Override
    public void onRequest(ChainRequest request, Channel from) {
        admission.admit(request, from, requests);
    }

    @Override
    public void onHeartbeat(HeartbeatFrame heartbeat, Channel from) {
        originator.onHeartbeat(heartbeat, from);
    }

    @Override
    public void onCancel(CancelFrame cancel) {
        onCancel(cancel, null);
    }

    @Override
    public void onCancel(CancelFrame cancel, Channel from) {
        if (!requests.cancel(cancel, transport.peerOf(from))) {
            transport.refusals().countFrame(Refusal.FORGED_FRAME, from);
        }
    }

    @Override
    public void onResult(ChainResultFrame result, Channel from) {
        originator.onResult(result, from);
    }

    @Override
    public void onError(ChainErrorFrame error, Channel from) {
        if (!requests.relay(error, null)) {
            originator.onError(withTypeName(error), from);
        }
    }

    @Override
    public void onReply(ReplyFrame reply, Channel from) {
        if (!requests.relay(reply, from)) {
            originator.onReply(reply, from);
        }
    }

    @Override
    public void onWindowUpdate(WindowUpdateFrame update, Channel from) {
        if (!update.grant()) {
            if (!requests.relay(update, from)) {
                originator.onWindowUpdate(update, from);
            }
        } else if (!requests.grant(update)) {
            // the stream has ended: the room goes back to the originator
            transport.send(from, new WindowUpdateFrame(update.chain(), update.stream(), false, update.replies(),
                    update.bytes(), 0));
        }
    }

    @Override
    public void onQuiet(QuietFrame quiet, Channel from) {
        if (!requests.relay(quiet, null)) {
            originator.onQuiet(quiet, from);
        }
    }

    /**
     * A frame of an atomic chain's commit protocol: a VOTE to a sub-chain's creator is relayed on
     * (with the sub-chain's credit, as a QUIET is), any other VOTE, WOUND or DECIDE_ACK goes to the
     * originator, a DECIDE to the server side (a participant), a QUERY to the originator if this node
     * started the transaction, else to the server side (a peer participant's question: answered only
     * from what it applied, never with the originator's presumed abort: chain ids of nodes collide).
     */
    @Override
    public void onTransaction(TxFrames.TxFrame frame, Channel from) {
        switch (frame) {
            case TxFrames.Vote v -> {
                if (!requests.relay(v, null)) {
                    originator.onTransaction(v, from);
                }
            }
            case TxFrames.Decide d -> {
                if (!requests.decide(d, from)) {
                    transport.refusals().countFrame(Refusal.FORGED_FRAME, from);
                }
            }
            case TxFrames.Query q when !q.origin().equals(originator.nodeName()) -> requests.peerQuery(q, from);
            default -> originator.onTransaction(frame, from);
        }
    }

    /**
     * A receiver that did not register a type knows only its id; the originator usually registered
     * it, so it can name the class.
     */
    private ChainErrorFrame withTypeName(ChainErrorFrame error) {
        ChainFailure f = error.failure();
        FailureFields fields = f.fields();
        Class<?> type = fields.typeId() == null || fields.typeName() != null ? null : types.typeOf(fields.typeId());
        if (type == null) {
            return error;
        }
        String id = "type id " + fields.typeId();
        String named = id + " (" + type.getName() + " at the originator)";
        String message = f.message() != null && f.message().contains(id + " ") ? f.message().replace(id + " ", named + " ")
                : f.message() + " (the originator registers " + id + " as " + type.getName() + ")";
        FailureFields withName = new FailureFields(fields.transientCondition(), fields.sandboxRule(), type.getName(),
                fields.typeId(), fields.diagnostics());
        return new ChainErrorFrame(error.chainId(), error.secret(), error.code(), new ChainFailure(f.exceptionName(), message,
                f.host(), f.hop(), f.path(), f.details(), f.console(), f.timings(), withName), error.credit());
    }
}
