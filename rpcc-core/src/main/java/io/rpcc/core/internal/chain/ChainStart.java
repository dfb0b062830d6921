package io.rpcc.core.internal.chain;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.internal.transport.OutboundStream;
import io.rpcc.core.spi.EngineSpi;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One chain as its originator starts it: what the originator needs to send it, send it again, and
 * run it step by step. Built once per call (a client makes it from the call and its own defaults)
 * and passed as it is to every part that starts the chain: the launcher and its attempts, the
 * interactive driver and its splits, the diagnosis of a broken chain, and {@link Node#launch} and
 * {@link Node#retransmit}, which turn it into the first hop's {@code ChainHeader}.
 *
 * @param first the first hop: its server, service function and parameters, and the chaining
 *     function (or {@link ChainingFunctionSource#NONE}) and state that run after it
 * @param metadata the chain's metadata, which every hop can read
 * @param maxHops the hop limit
 * @param timeout how long the originator waits for the chain's outcome (what is left of it, for a
 *     chain sent again or continued)
 * @param deadline when the chain must be done, on the originator's clock, or {@code null}: the
 *     timeout alone
 * @param heartbeats how the chain's heartbeats are watched ({@link HeartbeatPolicy#OFF}: not at all)
 * @param sending who is told of the first hop's failovers, and the data it streams to the first hop
 */
@EngineSpi
public record ChainStart(NextHop.Call first, Metadata metadata, int maxHops, Duration timeout,
                         @Nullable Instant deadline, HeartbeatPolicy heartbeats, Sending sending) {
    public ChainStart {
        Objects.requireNonNull(first, "first");
        Objects.requireNonNull(metadata, "metadata");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(heartbeats, "heartbeats");
        Objects.requireNonNull(sending, "sending");
    }

    /**
     * How the first hop is sent.
     *
     * @param failovers who is told when a hop the originator sends fails over to another endpoint of
     *     its server ({@link Failovers#NONE}: nobody)
     * @param stream the data stream the first hop's service function reads as it arrives, or
     *     {@code null}; sent once (a chain with a stream is not sent again)
     * @param atomic whether the chain is sent as an atomic chain: one transaction across all its hops
     *     ({@code ChainCall.atomic()}), its stamp in every hop's header
     */
    public record Sending(Failovers failovers, @Nullable OutboundStream stream, boolean atomic) {
        public Sending {
            Objects.requireNonNull(failovers, "failovers");
        }

        /** A chain that is not atomic. */
        public Sending(Failovers failovers, @Nullable OutboundStream stream) {
            this(failovers, stream, false);
        }
    }

    /** Whether the chain is atomic ({@code ChainCall.atomic()}). */
    public boolean atomic() {
        return sending.atomic();
    }

    /** A chain without a data stream. */
    public ChainStart(NextHop.Call first, Metadata metadata, int maxHops, Duration timeout, @Nullable Instant deadline,
                      HeartbeatPolicy heartbeats, Failovers failovers) {
        this(first, metadata, maxHops, timeout, deadline, heartbeats, new Sending(failovers, null));
    }

    /** Who is told when a hop the originator sends fails over to another endpoint of its server. */
    public Failovers failovers() {
        return sending.failovers();
    }

    /** The data the first hop's service function reads as it arrives, or {@code null}. */
    public @Nullable OutboundStream stream() {
        return sending.stream();
    }

    /** This chain with {@code data} streamed to its first hop. */
    public ChainStart streaming(@Nullable OutboundStream data) {
        return new ChainStart(first, metadata, maxHops, timeout, deadline, heartbeats,
                new Sending(failovers(), data, atomic()));
    }

    /** A chain whose failovers nobody is told of. */
    public ChainStart(NextHop.Call first, Metadata metadata, int maxHops, Duration timeout, @Nullable Instant deadline,
                      HeartbeatPolicy heartbeats) {
        this(first, metadata, maxHops, timeout, deadline, heartbeats, Failovers.NONE);
    }

    /** This chain, its failovers told to {@code to}. */
    public ChainStart tellingFailovers(Failovers to) {
        return new ChainStart(first, metadata, maxHops, timeout, deadline, heartbeats,
                new Sending(to, stream(), atomic()));
    }

    /**
     * A plain call of {@code serviceFunction} at {@code server} with {@code params}: one hop, no
     * metadata, no deadline, no heartbeats (rpcc's own calls).
     */
    public static ChainStart call(String server, String serviceFunction, @Nullable Object params, Duration timeout) {
        return new ChainStart(new NextHop.Call(server, serviceFunction, params, ChainingFunctionSource.NONE,
                ChainState.empty()), Metadata.empty(), 1, timeout, null, HeartbeatPolicy.OFF);
    }

    /** This chain as an atomic one ({@code ChainCall.atomic()}). */
    public ChainStart asAtomic() {
        return new ChainStart(first, metadata, maxHops, timeout, deadline, heartbeats,
                new Sending(failovers(), stream(), true));
    }

    /** The first server. */
    public String server() {
        return first.server();
    }

    /** The first service function. */
    public String serviceFunction() {
        return first.serviceFunction();
    }

    /** The first service function's parameters. */
    public @Nullable Object params() {
        return first.params();
    }

    /** The chaining function that runs after the first service function. */
    public ChainingFunctionSource chainingFunction() {
        return first.chainingFunction();
    }

    /** The state handed to that chaining function. */
    public ChainState state() {
        return first.state();
    }

    /** This chain with {@code left} as its timeout (what is left of the call's). */
    public ChainStart withTimeout(Duration left) {
        return new ChainStart(first, metadata, maxHops, left, deadline, heartbeats, sending);
    }

    /** This chain with {@code timeout} and {@code deadline} (or {@code null}) as its time limits (a chain sent again). */
    public ChainStart within(Duration timeout, @Nullable Instant deadline) {
        return new ChainStart(first, metadata, maxHops, timeout, deadline, heartbeats, sending);
    }

    /**
     * This chain continued from {@code next} (a branch of a split run step by step: its first hop and
     * chaining function), within {@code left}.
     */
    public ChainStart continuing(NextHop.Call next, Duration left) {
        return new ChainStart(next, metadata, maxHops, left, deadline, heartbeats,
                new Sending(failovers(), null, atomic()));
    }

    /**
     * This chain with {@code limit} as its hop limit (a branch's share of the hops left at a split,
     * or what the chain goes on with after a merge, see {@link NextHopDecision#branchLimits}).
     */
    public ChainStart withMaxHops(int limit) {
        return new ChainStart(first, metadata, limit, timeout, deadline, heartbeats, sending);
    }

    /**
     * One step of this chain run step by step (interactive mode): {@code serviceFunction} at
     * {@code server} with {@code params} alone (the originator runs the chaining functions), within
     * {@code left}, its heartbeats watched as {@code stepHeartbeats} says.
     */
    public ChainStart step(String server, String serviceFunction, @Nullable Object params, Duration left,
                           HeartbeatPolicy stepHeartbeats) {
        return new ChainStart(new NextHop.Call(server, serviceFunction, params, ChainingFunctionSource.NONE,
                ChainState.empty()), metadata, maxHops, left, deadline, stepHeartbeats, failovers());
    }
}
