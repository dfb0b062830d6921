package io.rpcc.client.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.Replies;
import io.rpcc.core.internal.chain.ReplyWindow;
import io.rpcc.core.internal.wire.ChainErrors;
import io.rpcc.core.internal.wire.LocatedFailure;
import java.time.Duration;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.spi.WallClock;
import java.util.List;

/**
 * Partial replies of chaining functions that run at the client (interactive mode): they go
 * straight into the chain's sink. The same counting as at a server tells when the work these
 * functions started has ended; if some of it threw, the chain ends partial with the first error.
 */
final class LocalReplies implements Replies {
    private static final long CANCEL_CHECK_NANOS = 50_000_000;
    private final ChainOriginator.ReplySink sink;
    private final String host;
    private final int hop;
    private final LocalWork work;
    private final ReplyWindow window;
    private final Duration writeTimeout;
    private final InteractiveChain.Cancellation cancellation;

    LocalReplies(ChainOriginator.ReplySink sink, ReplyWindow window, Duration writeTimeout, String host, int hop,
                 LocalWork work, InteractiveChain.Cancellation cancellation) {
        this.sink = sink;
        this.cancellation = cancellation;
        this.window = window;
        this.writeTimeout = writeTimeout;
        this.host = host;
        this.hop = hop;
        this.work = work;
    }

    @Override
    public void preturn(Object reply) {
        cancellation.check(hop); // as at a server: preturn throws ChainCancelledException after a cancel
        raise();
        try {
            boolean room = false;
            try (var waiting = WallClock.waitingForReader(writeTimeout)) { // the reader's time, not the function's
                long until = System.nanoTime() + writeTimeout.toNanos();
                long left = writeTimeout.toNanos();
                // in slices: a cancel (which ends the set without reading it) ends the wait within 50 ms
                while (true) {
                    room = window.acquireLocal(Duration.ofNanos(Math.min(left, CANCEL_CHECK_NANOS)));
                    if (room) {
                        break;
                    }
                    cancellation.check(hop);
                    left = until - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                room = false;
            }
            if (!room) {
                throw LocatedFailure.detected(ChainErrorCode.FLOW_CONTROL,
                        "the chaining function of hop " + hop + " at '" + host + "' could not send a partial reply: "
                        + "the reply set has not been read for " + writeTimeout.toMillis() + " ms (its buffer is full)",
                        host, hop, List.of()).toException();
            }
            cancellation.deliver(hop, () -> sink.onReply(reply, hop, host, 0)); // not after a cancel ended the set
        } finally {
            lower();
        }
    }

    @Override
    public void raise() {
        if (!work.tryRaise()) {
            throw new IllegalStateException("the interactive chain has finished; start work through "
                    + "ChainContext.wrap, executor or startThread while the chaining function runs");
        }
    }

    @Override
    public void lower() {
        work.release();
    }

    @Override
    public void failed(Throwable error) {
        work.failed(ChainErrors.toException(ChainErrorCode.SERVICE_FUNCTION_FAILED, new ChainFailure(
                error.getClass().getName(), "a task that the chaining function of hop " + hop + " started through "
                + "ChainContext at '" + host + "' threw " + error, host, hop, List.of(),
                FunctionRuntime.stackTrace(error), List.of(), List.of())));
    }
}
