package io.rpcc.client.internal;

import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.Replies;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Partial replies of chaining functions that run at the client (interactive mode): they go
 * straight into the chain's sink. The same counting as at a server tells when the work these
 * functions started has ended.
 */
final class LocalReplies implements Replies {
    private final ChainOriginator.ReplySink sink;
    private final String host;
    private final int hop;
    private final AtomicLong count;
    private final CompletableFuture<Void> quiet;

    LocalReplies(ChainOriginator.ReplySink sink, String host, int hop, AtomicLong count, CompletableFuture<Void> quiet) {
        this.sink = sink;
        this.host = host;
        this.hop = hop;
        this.count = count;
        this.quiet = quiet;
    }

    @Override
    public void preturn(Object reply) {
        raise();
        try {
            sink.onReply(reply, hop, host, null);
        } finally {
            lower();
        }
    }

    @Override
    public void raise() {
        while (true) {
            long c = count.get();
            if (c == 0) {
                throw new IllegalStateException("the interactive chain has finished; start work through "
                        + "ChainContext.wrap, executor or startThread while the chaining function runs");
            }
            if (count.compareAndSet(c, c + 1)) {
                return;
            }
        }
    }

    @Override
    public void lower() {
        if (count.decrementAndGet() == 0) {
            quiet.complete(null);
        }
    }
}
