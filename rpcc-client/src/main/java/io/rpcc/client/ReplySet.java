package io.rpcc.client;

import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import java.time.Duration;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The partial replies of a chain, read as they arrive (Quatrain's reply set). Every hop of the
 * chain, and every thread it started, may {@code preturn} replies; they come straight from the
 * server that produced them. The set ends exactly when the chain is finished: its final result (or
 * error) has arrived <em>and</em> every reply of every hop has arrived — never earlier, never
 * hanging (a timeout ends it too).
 *
 * <pre>{@code
 * ReplySet<Record> replies = client.startChainWithReplies(ChainCall.to("aggregator", "gather").params(query),
 *                                                         Record.class);
 * while (replies.hasMore()) {               // blocks until a reply arrives or the set ends
 *     show(replies.next());
 * }
 * if (replies.isPartial()) {                 // ended by an error or a timeout
 *     log.warn("some records are missing: {}", replies.error().getMessage());
 * }
 * Object summary = replies.result().join().value();   // the chain's final result
 * }</pre>
 *
 * <p>Also an {@link Iterable} (one pass), a {@link #stream()} and a {@link #publisher()}. The buffer
 * is bounded, in replies and in bytes ({@code RpccClient.builder().replyBufferSize(n)} and
 * {@code replyBufferBytes(b)}), exactly: the servers that produce replies send only within the room
 * this set grants them, and their {@code preturn} waits while there is none; memory stays bounded
 * whatever the speed of the reader, and other chains, even on the same connections, are not held up.
 *
 * <p>{@link #cancel()} stops the chain wherever it is, and ends the set with a
 * {@link ChainCancelledException}; a timeout cancels the chain too.
 *
 * <p>rpcc implements this interface ({@code RpccClient.startChainWithReplies}); it is not meant to be
 * implemented elsewhere, and methods may be added to it.
 *
 * @param <T> the type of the replies
 */
public interface ReplySet<T> extends Iterable<T> {
    /**
     * Cancels the chain: the notice follows it from server to server, the hop running is
     * interrupted, the producers' {@code preturn} throws, no further hop starts, and the set ends at
     * once with a {@link ChainCancelledException} ({@link #error()}, {@link #result()}); the replies
     * received so far stay readable, and those still on their way are dropped. The set and the
     * result are separate: if the chain's result had arrived before the cancel (the set was still
     * waiting for replies), {@link #result()} keeps that result, and the cancel still ends the set
     * ({@link #isPartial()}, {@link #error()} is the {@link ChainCancelledException}).
     *
     * @return {@code true} if this call ended the set (whether or not the result had arrived),
     *     {@code false} if it had already ended
     */
    boolean cancel();

    /**
     * Whether another reply is available, waiting until one arrives or the set ends.
     */
    boolean hasMore();

    /**
     * Whether another reply is available, waiting at most {@code timeout}.
     *
     * @return {@code true} if one is available, {@code false} if the set ended or the wait timed out
     */
    boolean hasMore(Duration timeout) throws InterruptedException;

    /**
     * The next reply, waiting until one arrives.
     *
     * @throws NoSuchElementException if the set ended without more replies
     */
    T next();

    /** A one-pass iterator over the replies ({@link #hasMore()} / {@link #next()}). */
    @Override
    Iterator<T> iterator();

    /** The replies as a sequential stream, in arrival order; it ends when the set ends. */
    Stream<T> stream();

    /**
     * The replies as a {@link Flow.Publisher} for one subscriber, honouring its demand; signals
     * {@code onComplete} when the set ends normally and {@code onError} with {@link #error()} when it
     * ends by an error or a timeout (after delivering the replies received). Delivery runs on the
     * client's executor.
     */
    Flow.Publisher<T> publisher();

    /** The chain's final result: completes when it arrives, possibly before the last replies. */
    CompletableFuture<ChainResult> result();

    /** Completes (on the client's executor) when the set has ended. */
    CompletableFuture<ReplySet<T>> whenDone();

    /** Waits until the set has ended (replies may still be unread). */
    ReplySet<T> awaitDone();

    /** Whether the set has ended: no reply will be added. */
    boolean isDone();

    /** Whether the set ended before the chain produced everything: by an error, a timeout or a cancel. */
    boolean isPartial();

    /** Whether the set was ended by the timeout; the replies received so far are kept. */
    boolean timedOut();

    /** What ended the chain if it failed or timed out (a {@link ChainException}), or {@code null}. */
    @Nullable ChainException error();

    /** The number of replies received so far. */
    int received();

    /** The most replies that were ever waiting in the buffer at once (for monitoring). */
    int maxBuffered();

    /** The most bytes (of reply frames) that were ever waiting in the buffer at once (for monitoring). */
    long maxBufferedBytes();

    /** Replies that arrived after the set ended: always 0 unless the termination protocol is broken. */
    int arrivedAfterEnd();
}
