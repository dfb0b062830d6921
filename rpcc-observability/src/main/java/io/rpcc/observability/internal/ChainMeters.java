package io.rpcc.observability.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rpcc.client.ChainDecorator;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The client's meters of whole chains, as a {@link ChainDecorator}: chains started, completed and
 * failed by error code, and how long they took. The meters are made once, every code's counter
 * included, so a chain costs a few atomic additions.
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
        long t0 = System.nanoTime();
        return Decoration.of(start.call(), (result, failure) -> ended(failure, System.nanoTime() - t0));
    }

    private void ended(@Nullable Throwable failure, long nanos) {
        if (failure == null) {
            completed.increment();
            completedTime.record(nanos, TimeUnit.NANOSECONDS);
            return;
        }
        failedTime.record(nanos, TimeUnit.NANOSECONDS);
        if (failure instanceof ChainException e) {
            failed.get(e.code()).increment();
        } else {
            failedOther.increment();
        }
    }
}
