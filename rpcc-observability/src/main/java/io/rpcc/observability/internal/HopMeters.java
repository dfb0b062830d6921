package io.rpcc.observability.internal;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.rpcc.core.HopTiming;
import io.rpcc.server.HopDecorator;
import io.rpcc.server.HopOutcome;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A server's meters of the hops it runs, as a {@link HopDecorator}: each hop's time at the server
 * (from its start to its end, the work it started through its context included) by service
 * function, kind and outcome, and, for a service function's hop, the time its request waited for a
 * thread and the time the function ran ({@link HopTiming}). The {@code function} tag takes a
 * bounded set of values ({@link FunctionTags}).
 */
public final class HopMeters implements HopDecorator {
    private static final ClassValue<String> OUTCOME = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
            return type.getSimpleName().toLowerCase(Locale.ROOT);
        }
    };

    private static final String[] KIND = new String[Kind.values().length];

    static {
        for (Kind k : Kind.values()) {
            KIND[k.ordinal()] = k.name().toLowerCase(Locale.ROOT);
        }
    }

    private final Meter.MeterProvider<Timer> duration;
    private final Meter.MeterProvider<Timer> queue;
    private final Meter.MeterProvider<Timer> service;
    private final FunctionTags functions = new FunctionTags();

    /** Meters in {@code registry}. */
    public HopMeters(MeterRegistry registry) {
        duration = Timer.builder(MeterNames.HOP_DURATION)
                .description("a hop at this server, from its start to its end (work it started included)")
                .publishPercentileHistogram().withRegistry(registry);
        queue = Timer.builder(MeterNames.HOP_QUEUE)
                .description("a hop's request waiting at this server until its service function started")
                .publishPercentileHistogram().withRegistry(registry);
        service = Timer.builder(MeterNames.HOP_SERVICE).description("a hop's service function running")
                .publishPercentileHistogram().withRegistry(registry);
    }

    @Override
    public Listener decorate(Start start) {
        long t0 = System.nanoTime();
        String node = start.context().node();
        String function = functions.of(start);
        Kind kind = start.kind();
        return (outcome, timing) -> ended(node, function, kind, outcome, timing, System.nanoTime() - t0);
    }

    private void ended(String node, String function, Kind kind, HopOutcome outcome, @Nullable HopTiming timing,
                       long nanos) {
        duration.withTags(Tags.of("node", node, "function", function, "kind", KIND[kind.ordinal()],
                "outcome", OUTCOME.get(outcome.getClass()))).record(nanos, TimeUnit.NANOSECONDS);
        if (kind == Kind.SERVICE && timing != null) {
            Tags tags = Tags.of("node", node, "function", function);
            queue.withTags(tags).record(timing.queueNanos(), TimeUnit.NANOSECONDS);
            service.withTags(tags).record(timing.serviceNanos(), TimeUnit.NANOSECONDS);
        }
    }
}
