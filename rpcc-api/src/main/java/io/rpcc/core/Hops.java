package io.rpcc.core;

import org.jspecify.annotations.Nullable;

/**
 * The calls of a {@link SequentialChain}, and its console and partial replies. Each call is a hop:
 * the first time the code reaches it, the run stops there and the chain goes on to that server;
 * when the code runs again at that server, after its service function, the call returns the
 * service function's result.
 *
 * <p>Do not catch what a call throws to stop the run: it is an {@link Error} (the sandbox refuses
 * {@code catch (Error)} and {@code catch (Throwable)}), and a run that goes on after it anyway (a
 * {@code finally} that returns) fails the chain.
 */
public interface Hops {
    /**
     * A typed view of {@code server}: calling a method of {@code serviceInterface} calls the service
     * function it names ({@link ServiceMethod}, or the method's name) at {@code server}. No argument
     * passes {@code null} params, one passes itself, several pass a {@code List} of them in order.
     * A returned number is converted to the method's primitive return type if it is one.
     *
     * @throws IllegalArgumentException if {@code serviceInterface} is not an interface
     */
    <T> T at(String server, Class<T> serviceInterface);

    /** Calls {@code serviceFunction} at {@code server} with {@code params}: its result. */
    @Nullable Object call(String server, String serviceFunction, @Nullable Object params);

    /**
     * As {@link #call(String, String, Object)}, cast to {@code resultType}.
     *
     * @throws ClassCastException if the result is not a {@code resultType}
     */
    <T> @Nullable T call(String server, String serviceFunction, @Nullable Object params, Class<T> resultType);

    /**
     * The chain's virtual console. A line printed here is printed once, by the hop that first runs
     * that line of code (not again by the replays of later hops). Before the first call, the code
     * runs at the client to find the first hop, and at the first hop again: lines printed before
     * the first call are printed by the first hop.
     */
    VirtualConsole console();

    /**
     * Sends {@code value} to the originator as a partial reply ({@link ChainContext#preturn}), once:
     * by the hop that first runs this line of code, not by later replays (as {@link #console()}).
     */
    void preturn(Object value);

    /** How many calls this run has made so far: those that returned, and the one that stopped it, if any. */
    int calls();
}
