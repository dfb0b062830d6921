package io.rpcc.core.internal.transport;

import io.netty.channel.Channel;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainResultFrame;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.ReplyFrame;
import io.rpcc.core.internal.wire.WindowUpdateFrame;

/**
 * A test fixture: an {@link InboundListener} that drops every frame it is told of, for a {@link NodeTransport}
 * whose test sends and whose peer answers nothing after its HELLO.
 */
final class DeafListener implements InboundListener {
    @Override
    public void onRequest(ChainRequest request) {
    }

    @Override
    public void onResult(ChainResultFrame result, Channel from) {
    }

    @Override
    public void onError(ChainErrorFrame error, Channel from) {
    }

    @Override
    public void onReply(ReplyFrame reply, Channel from) {
    }

    @Override
    public void onQuiet(QuietFrame quiet, Channel from) {
    }

    @Override
    public void onWindowUpdate(WindowUpdateFrame update, Channel from) {
    }

    @Override
    public void onCancel(CancelFrame cancel) {
    }

    @Override
    public void onHeartbeat(HeartbeatFrame heartbeat, Channel from) {
    }
}
