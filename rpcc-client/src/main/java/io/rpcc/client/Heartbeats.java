package io.rpcc.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How a client watches its chains for breaks (paper 3.9, 3.10): the node holding a chain sends
 * the client a heartbeat every {@link #interval()} (a split's branches each send their own; a merge
 * host sends them for the branches that have arrived), and the client declares the chain broken
 * when a branch it expects has sent none for {@link #brokenAfter()}. A broken chain is then run in
 * interactive mode to find the hop where it stops, and fails with a
 * {@link io.rpcc.core.BrokenChainException} naming that hop and its host (or succeeds, if the break
 * was transient).
 *
 * <pre>{@code
 * RpccClient.builder().heartbeats(Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(2)));  // every chain
 * client.startChain(call.heartbeats(Heartbeats.off()));                                              // one call
 * }</pre>
 *
 * <p>The broken-after time must exceed the interval, with room for the network and a loaded node:
 * a hop that is alive but cannot send its heartbeat in time (a stalled link, a long pause) looks
 * broken. The default, {@link #DEFAULT}, is the paper's: every 3 s, broken after 6 s.
 *
 * @param interval how often the chain sends a heartbeat ({@link Duration#ZERO}: never, the chain is
 *     never declared broken and waits for its timeout)
 * @param brokenAfter how long a branch may be silent before the chain is broken (ignored when off)
 */
public record Heartbeats(Duration interval, Duration brokenAfter) {
    /** The default: a heartbeat every 3 s, broken after 6 s without one (paper 3.9). */
    public static final Heartbeats DEFAULT = new Heartbeats(Duration.ofSeconds(3), Duration.ofSeconds(6));

    /**
     * Validates.
     *
     * @throws IllegalArgumentException if the interval is negative, or positive and not shorter than {@code brokenAfter}
     */
    public Heartbeats {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(brokenAfter, "brokenAfter");
        if (interval.isNegative()) {
            throw new IllegalArgumentException("the heartbeat interval must not be negative, got " + interval);
        }
        if (!interval.isZero() && brokenAfter.compareTo(interval) <= 0) {
            throw new IllegalArgumentException("brokenAfter (" + brokenAfter + ") must be longer than the heartbeat "
                    + "interval (" + interval + "), with room for the network: twice the interval is a good start");
        }
    }

    /** A heartbeat every {@code interval}, the chain broken after {@code brokenAfter} without one. */
    public static Heartbeats every(Duration interval, Duration brokenAfter) {
        if (interval.isZero()) {
            throw new IllegalArgumentException("a heartbeat interval must be positive; use Heartbeats.off()");
        }
        return new Heartbeats(interval, brokenAfter);
    }

    /** No heartbeats: a chain is never declared broken; it ends by its timeout. */
    public static Heartbeats off() {
        return new Heartbeats(Duration.ZERO, Duration.ZERO);
    }

    /** Whether chains send heartbeats. */
    public boolean isOn() {
        return !interval.isZero();
    }
}
