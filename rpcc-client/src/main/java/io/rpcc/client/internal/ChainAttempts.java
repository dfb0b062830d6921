package io.rpcc.client.internal;

import io.rpcc.client.RetryPolicy;
import io.rpcc.core.ChainCancelledException;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.core.internal.chain.ChainOriginator;
import io.rpcc.core.internal.chain.ChainStart;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.LocatedFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The sendings (attempts) of one chain in chain mode (paper 3.9, idempotent retry): the first, and,
 * while its {@link RetryPolicy}, the client's {@link RetryTokens}, the call's timeout and its deadline
 * allow, the same chain (same id and secret) again after a backoff each time an attempt fails with a
 * {@link ChainException#isRetryable() retryable} failure (a chain declared broken by its heartbeats
 * too: a {@code BrokenChainException}). {@link #last()} completes with the attempt
 * that is not sent again: its outcome is the call's (the caller waits for it to finish as for any
 * chain). Before an attempt is sent again, the one it replaces gets its backoff to bring its credit
 * home (so that its partial replies are all in); whatever of it arrives after is late and dropped
 * ({@link ChainOriginator#earlierAttemptFrames()}). Every attempt's replies go to the same sink.
 */
final class ChainAttempts {
    private final Node node;
    private final ChainStart start;
    private final RetryPolicy policy;
    private final RetryTokens tokens;
    private final ChainOriginator.ReplySink sink;
    private final Retries retries;
    private final long startNanos = System.nanoTime();
    private final CompletableFuture<ChainOriginator.Pending> last = new CompletableFuture<>();
    private volatile ChainOriginator.Pending current;
    private volatile boolean cancelled;

    private ChainAttempts(Node node, ChainStart start, RetryPolicy policy, RetryTokens tokens,
                          ChainOriginator.ReplySink sink, Retries retries) {
        this.node = node;
        this.start = start;
        this.policy = policy;
        this.tokens = tokens;
        this.sink = sink;
        this.retries = retries;
    }

    /**
     * Starts {@code start} (or, if {@code earlier} is not null, sends that chain, which has ended,
     * again), within its timeout from now and its deadline; each retry told to {@code retries}.
     */
    static ChainAttempts start(Node node, ChainStart start, RetryPolicy policy, RetryTokens tokens,
                               ChainOriginator.ReplySink sink, Retries retries, ChainOriginator.Pending earlier) {
        ChainAttempts a = new ChainAttempts(node, start, policy, tokens, sink, retries);
        a.watch(earlier == null ? node.launch(start, sink) : node.retransmit(earlier, start, sink));
        return a;
    }

    /** Completes with the attempt whose outcome is the call's. */
    CompletableFuture<ChainOriginator.Pending> last() {
        return last;
    }

    /** When the call started ({@link System#nanoTime()}). */
    long startNanos() {
        return startNanos;
    }

    /**
     * Cancels the chain: the attempt in flight (see {@link Node#cancel}), and no further one starts.
     * Returns the exception the call ends with.
     */
    Throwable cancel(String why) {
        cancelled = true;
        ChainOriginator.Pending p = current;
        if (!node.cancel(p, why) && p.tx() != null && p.tx().committed()) {
            return CancellableFuture.TOO_LATE; // decided to commit: the future gets the result
        }
        Throwable ended = p.outcome().handle((r, e) -> e == null ? null : Node.unwrap(e)).getNow(null);
        if (ended instanceof ChainCancelledException) {
            return ended;
        }
        ChainException e = LocatedFailure.detected(ChainErrorCode.CANCELLED,
                "chain " + node.originator().chainId(p.id()) + " was cancelled by its originator (" + why + ")",
                node.name(), 0, List.of()).toException();
        last.complete(p);
        return e;
    }

    private void watch(ChainOriginator.Pending p) {
        current = p;
        p.outcome().whenComplete((arrival, e) -> {
            if (e == null) {
                tokens.succeeded();
                last.complete(p);
                return;
            }
            Throwable failure = Node.unwrap(e);
            if (failure instanceof TransactionAbortedException && p.tx() != null && p.tx().wounded()) {
                node.executor().execute(() -> restartWounded(p));
                return;
            }
            Duration backoff = policy.backoff(p.attempt(), ThreadLocalRandom.current().nextDouble());
            if (!mayRetry(p, failure, backoff)) {
                last.complete(p);
                return;
            }
            CompletableFuture.delayedExecutor(backoff.toNanos(), TimeUnit.NANOSECONDS, node.executor())
                    .execute(() -> again(p, failure));
        });
    }

    /** Whether {@code p}, which failed with {@code failure}, is sent again after {@code backoff}. */
    private boolean mayRetry(ChainOriginator.Pending p, Throwable failure, Duration backoff) {
        if (cancelled || !(failure instanceof ChainException ce) || !ce.isRetryable()
                || p.attempt() >= policy.maxAttempts()) {
            return false;
        }
        long afterBackoff = System.nanoTime() + backoff.toNanos();
        if (start.timeout().toNanos() - (afterBackoff - startNanos) <= 0
                || (start.deadline() != null && !Instant.now().plus(backoff).isBefore(start.deadline()))) {
            return false; // the call's time would be up before the chain is sent again
        }
        try {
            node.requireAcceptingChains(); // a client closing or closed sends nothing again
        } catch (RuntimeException closing) {
            return false;
        }
        return tokens.tryRetry();
    }

    /**
     * Atomic chain attempt {@code wounded} was wounded by an older transaction and aborted: it starts
     * again at once, as a new chain with the same stamp (so it keeps its age), with no retry policy
     * and no token: as often as it is wounded, while the call's timeout and deadline allow. The
     * oldest transaction is never wounded, so every chain gets its turn.
     */
    private void restartWounded(ChainOriginator.Pending wounded) {
        Duration left = start.timeout().minusNanos(System.nanoTime() - startNanos);
        if (cancelled || left.isNegative() || left.isZero()
                || (start.deadline() != null && !Instant.now().isBefore(start.deadline()))) {
            node.originator().atomic().gaveUp(wounded);
            last.complete(wounded);
            return;
        }
        try {
            node.requireAcceptingChains();
            watch(node.relaunchAtomic(wounded, start.withTimeout(left), sink));
        } catch (RuntimeException e) { // the client closed meanwhile: the wounded attempt's outcome stands
            node.originator().atomic().gaveUp(wounded);
            last.complete(wounded);
        }
    }

    private void again(ChainOriginator.Pending earlier, Throwable failure) {
        Duration left = start.timeout().minusNanos(System.nanoTime() - startNanos);
        // mayRetry looked before the backoff; the backoff's task may run late (a busy executor or CPU): if
        // the call's time is up now, the chain is not sent again and the earlier attempt's failure stands
        if (cancelled || left.isNegative() || left.isZero()
                || (start.deadline() != null && !Instant.now().isBefore(start.deadline()))) {
            last.complete(earlier);
            return;
        }
        node.originator().supersede(earlier); // its credit did not all come home in the backoff: the rest is late
        try {
            node.requireAcceptingChains();
            ChainOriginator.Pending next = node.retransmit(earlier, start.withTimeout(left), sink);
            retries.retried(next.attempt(), failure);
            watch(next);
        } catch (RuntimeException e) { // the client closed meanwhile: the earlier attempt's outcome stands
            last.complete(earlier);
        }
    }
}
