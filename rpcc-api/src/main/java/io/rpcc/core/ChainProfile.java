package io.rpcc.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A chain's per-hop timings aggregated at the client (paper section 3.7): time spent in service
 * functions, in chaining functions (and their compilation), and everything else (network, queues,
 * serialization), which is the elapsed time minus the time accounted for at the nodes.
 * {@link #toString()} prints a table.
 */
public final class ChainProfile {
    private final List<HopTiming> timings;
    private final Duration elapsed;
    private final List<StateChoice> stateChoices;

    /** A profile of {@code timings} for a chain that took {@code elapsed}. */
    public ChainProfile(List<HopTiming> timings, Duration elapsed) {
        this(timings, elapsed, List.of());
    }

    /**
     * A profile of {@code timings} for a chain that took {@code elapsed}, whose adaptive state
     * fall-back made {@code stateChoices}.
     */
    public ChainProfile(List<HopTiming> timings, Duration elapsed, List<StateChoice> stateChoices) {
        this.timings = List.copyOf(timings);
        this.elapsed = elapsed;
        this.stateChoices = List.copyOf(stateChoices);
    }

    /** Where the chain's state went at each hop an adaptive state fall-back chose for ({@link StateChoice}). */
    public List<StateChoice> stateChoices() {
        return stateChoices;
    }

    /** Total nanoseconds in service functions. */
    public long serviceNanos() {
        return timings.stream().mapToLong(HopTiming::serviceNanos).sum();
    }

    /** Total nanoseconds compiling and running chaining functions. */
    public long chainingNanos() {
        return timings.stream().mapToLong(t -> t.chainingNanos() + t.compileNanos()).sum();
    }

    /** Total nanoseconds waiting in the nodes' queues before service functions started. */
    public long queueNanos() {
        return timings.stream().mapToLong(HopTiming::queueNanos).sum();
    }

    /** Elapsed time not spent at the nodes: network, serialization, the client's own work. */
    public long transferNanos() {
        return Math.max(0, elapsed.toNanos() - serviceNanos() - chainingNanos() - queueNanos());
    }

    /** Nanoseconds at each host (queue, service, compile and chaining), in order of first visit. */
    public Map<String, Long> nanosPerHost() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (HopTiming t : timings) {
            out.merge(t.host(), t.queueNanos() + t.serviceNanos(), Long::sum);
            out.merge(t.chainingHost(), t.compileNanos() + t.chainingNanos(), Long::sum);
        }
        return out;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%4s  %-14s %-16s %9s %9s %9s %9s  %s%n",
                "hop", "host", "service", "queue ms", "svc ms", "compile", "chain ms", "chained at"));
        for (HopTiming t : timings) {
            sb.append(String.format(Locale.ROOT, "%4d  %-14s %-16s %9.3f %9.3f %9.3f %9.3f  %s%n",
                    t.hop(), t.host(), t.serviceFunction(), ms(t.queueNanos()), ms(t.serviceNanos()),
                    ms(t.compileNanos()), ms(t.chainingNanos()), t.chainingHost()));
        }
        sb.append(String.format(Locale.ROOT,
                "total %.3f ms = service %.3f + chaining %.3f + queues %.3f + network/serialization %.3f",
                ms(elapsed.toNanos()), ms(serviceNanos()), ms(chainingNanos()), ms(queueNanos()), ms(transferNanos())));
        for (StateChoice c : stateChoices) {
            sb.append(String.format(Locale.ROOT, "%nstate: %s", c));
        }
        return sb.toString();
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
