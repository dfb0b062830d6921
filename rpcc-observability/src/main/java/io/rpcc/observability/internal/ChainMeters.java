package io.rpcc.observability.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rpcc.client.ChainDecorator;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import org.jspecify.annotations.Nullable;

/**
 * The client's meters of whole chains, as a {@link ChainDecorator}: chains started, completed and
 * failed by error code, how long they took, and how many partial replies (and bytes of them) each
 * had. The meters are made once, every code's counter included, so a chain costs a few atomic
 * additions and its listener.
 */
public final class ChainMeters implements ChainDecorator {
    /** The tag value of a failure that is not a {@link ChainException} (e.g. a decorator that threw). */
    public static final String NOT_A_CHAIN_ERROR = "CLIENT";

    private final MeterRegistry registry;
    private final Counter started;
    private final Counter completed;
    private final Timer completedTime;
    private final Timer failedTime;
    private final Map<ChainErrorCode, Counter> failed = new EnumMap<>(ChainErrorCode.class);
    private final Counter failedOther;
    private final DistributionSummary completedReplies;
    private final DistributionSummary failedReplies;
    private final DistributionSummary completedReplyBytes;
    private final DistributionSummary failedReplyBytes;

    /** Meters in {@code registry}. */
    public ChainMeters(MeterRegistry registry) {
        this.registry = registry;
        started = Counter.builder(MeterNames.CHAINS_STARTED).description("chains this client started")
                .register(registry);
        completed = Counter.builder(MeterNames.CHAINS_COMPLETED).description("chains that ended with their result")
                .register(registry);
        completedTime = chainTimer("completed");
        failedTime = chainTimer("failed");
        for (ChainErrorCode code : ChainErrorCode.values()) { // every code up front: no map writes per chain
            failed.put(code, failedCounter(code.name()));
        }
        failedOther = failedCounter(NOT_A_CHAIN_ERROR);
        completedReplies = repliesSummary("completed");
        failedReplies = repliesSummary("failed");
        completedReplyBytes = replyBytesSummary("completed");
        failedReplyBytes = replyBytesSummary("failed");
    }

    private DistributionSummary repliesSummary(String outcome) {
        return DistributionSummary.builder(MeterNames.CHAIN_REPLIES)
                .description("the partial replies delivered to a chain, recorded when it ends")
                .tag("outcome", outcome).publishPercentileHistogram().register(registry);
    }

    private DistributionSummary replyBytesSummary(String outcome) {
        return DistributionSummary.builder(MeterNames.CHAIN_REPLY_BYTES)
                .description("the bytes of a chain's partial replies as they came on the wire, recorded when it ends")
                .baseUnit("bytes").tag("outcome", outcome).publishPercentileHistogram().register(registry);
    }

    private Timer chainTimer(String outcome) {
        return Timer.builder(MeterNames.CHAIN_DURATION).description("from a chain's start to its end, at its originator")
                .tag("outcome", outcome).publishPercentileHistogram().register(registry);
    }

    private Counter failedCounter(String code) {
        return Counter.builder(MeterNames.CHAINS_FAILED).description("chains that ended with an error, by its code")
                .tag("code", code).register(registry);
    }

    @Override
    public Decoration decorate(Start start) {
        started.increment();
        return Decoration.of(start.call(), new Chain(System.nanoTime()));
    }

    /** One chain: counts its replies (which may come on several event loops at once) until it ends. */
    private final class Chain implements Listener {
        private static final AtomicIntegerFieldUpdater<Chain> REPLIES =
                AtomicIntegerFieldUpdater.newUpdater(Chain.class, "replies");
        private static final AtomicLongFieldUpdater<Chain> BYTES = AtomicLongFieldUpdater.newUpdater(Chain.class, "bytes");

        private final long t0;
        private volatile int replies;
        private volatile long bytes;

        Chain(long t0) {
            this.t0 = t0;
        }

        @Override
        public void replied(int bytes) {
            REPLIES.incrementAndGet(this);
            BYTES.addAndGet(this, bytes);
        }

        @Override
        public void ended(@Nullable ChainResult result, @Nullable Throwable failure) {
            ChainMeters.this.ended(failure, System.nanoTime() - t0, replies, bytes);
        }
    }

    private void ended(@Nullable Throwable failure, long nanos, int replies, long bytes) {
        if (failure == null) {
            completed.increment();
            completedTime.record(nanos, TimeUnit.NANOSECONDS);
            completedReplies.record(replies);
            completedReplyBytes.record(bytes);
            return;
        }
        failedTime.record(nanos, TimeUnit.NANOSECONDS);
        failedReplies.record(replies);
        failedReplyBytes.record(bytes);
        if (failure instanceof ChainException e) {
            failed.get(e.code()).increment();
        } else {
            failedOther.increment();
        }
    }
}
