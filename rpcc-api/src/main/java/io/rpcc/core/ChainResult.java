package io.rpcc.core;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of a chain that ended normally, as seen by its originator.
 *
 * <pre>{@code
 * ChainResult r = client.startChain("gateway", "region", order, route, state).join();
 * Quote q = r.value(Quote.class);
 * System.out.println(String.join(" → ", r.path()));
 * r.console().forEach(System.out::println);
 * System.out.println(r.profile());
 * }</pre>
 *
 * @param value the chain's result
 * @param originator the node that started the chain
 * @param path the servers the chain traversed, in order; a long chain's path is bounded, one entry
 *     standing for the servers left out between its first and last ones ({@link HopPath})
 * @param console the virtual console: every line written by service and chaining functions
 * @param timings per-hop timings, in hop order; a long chain's are those of its first and last hops
 *     ({@link HopPath#MAX_TIMINGS})
 * @param elapsed from the start of the chain to the arrival of its result, at the originator
 * @param interactive whether the chain ran in interactive mode (chaining functions at the client)
 * @param replies the partial replies ({@code preturn}) of every hop, in arrival order; empty when
 *     the chain was read through a {@code ReplySet}, which hands them out as they arrive
 * @param stateChoices what the chain did with its state at each hop where an adaptive state
 *     fall-back chose between carrying it and keeping it at the originator; empty otherwise
 */
public record ChainResult(@Nullable Object value, String originator, List<String> path, List<ConsoleLine> console,
                          List<HopTiming> timings, Duration elapsed, boolean interactive, List<Object> replies,
                          List<StateChoice> stateChoices) {

    public ChainResult {
        stateChoices = List.copyOf(stateChoices);
        path = List.copyOf(path);
        console = List.copyOf(console);
        // (timings the engine decodes only when read are kept as they are: they are immutable too)
        timings = timings instanceof io.rpcc.core.spi.ReadLazily<HopTiming> lazy ? lazy : List.copyOf(timings);
        // (a copy that may hold nulls, as a reply may be null; none for the common chain without replies)
        replies = replies.isEmpty() ? List.of() : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(replies));
    }

    /** A result without state choices (no adaptive state fall-back chose anything). */
    public ChainResult(@Nullable Object value, String originator, List<String> path, List<ConsoleLine> console,
                       List<HopTiming> timings, Duration elapsed, boolean interactive, List<Object> replies) {
        this(value, originator, path, console, timings, elapsed, interactive, replies, List.of());
    }

    /** This result with {@code replies}. */
    public ChainResult withReplies(List<Object> replies) {
        return new ChainResult(value, originator, path, console, timings, elapsed, interactive, replies, stateChoices);
    }

    /** This result with {@code choices} as its state choices. */
    public ChainResult withStateChoices(List<StateChoice> choices) {
        return new ChainResult(value, originator, path, console, timings, elapsed, interactive, replies, choices);
    }

    /** The result as a {@code type}. */
    public <T> @Nullable T value(Class<T> type) {
        return type.cast(value);
    }

    /** The number of hops the chain took (its path's servers, elided ones included: {@link HopPath#visited}). */
    public int hops() {
        return (int) Math.min(Integer.MAX_VALUE, HopPath.visited(path));
    }

    /** The timings aggregated per host and against the elapsed time. */
    public ChainProfile profile() {
        return new ChainProfile(timings, elapsed, stateChoices);
    }
}
