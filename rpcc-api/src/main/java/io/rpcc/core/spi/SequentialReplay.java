package io.rpcc.core.spi;

import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.Hops;
import io.rpcc.core.NextHop;
import io.rpcc.core.SequentialChain;
import io.rpcc.core.VirtualConsole;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Runs a {@link SequentialChain} by deterministic replay, as a chaining function: a language
 * plug-in whose compiled class is a sequential chain calls {@link #step} where it would call
 * {@code ChainingFunction.apply}, inside its sandbox, and the client calls {@link #start} to find
 * the first hop.
 *
 * <p>The chain state holds the input ({@value #INPUT}), the results of the calls made so far
 * ({@value #RESULTS}) and each call's server and service function ({@value #CALLS}, as
 * {@code function@server}). At each hop the function runs again from the start: a call at a
 * position already recorded returns its recorded result (after checking that it is the same server
 * and service function, else the chain fails with {@link io.rpcc.core.ChainErrorCode#REPLAY_DIVERGED}),
 * and the first call not recorded stops the run with an {@link Error} of this class's own, which
 * becomes the next hop. A run that goes on after that stop (a {@code finally} that returns, or a
 * {@code catch (Throwable)} where no sandbox refuses it) fails the chain.
 */
public final class SequentialReplay {
    /** The state entry holding the chain's input. */
    public static final String INPUT = "seq.input";
    /** The state entry holding the results of the calls made so far, in order. */
    public static final String RESULTS = "seq.results";
    /** The state entry holding the calls made so far, in order, as {@code function@server}. */
    public static final String CALLS = "seq.calls";
    /**
     * The most calls one sequential chain makes: each hop replays every call before it, so the
     * replay's work and the state grow with the number of calls. Longer chains fail at the call past
     * it; write them as chaining functions ({@code ChainingFunction}) that keep only what they need.
     */
    public static final int MAX_CALLS = 1000;

    private SequentialReplay() {
    }

    /**
     * The first hop of a sequential chain: runs {@code function} with no result recorded up to its
     * first call (at the caller, without console or partial replies), and returns that call with
     * the state the chain starts with; the call's chaining function is
     * {@link io.rpcc.core.ChainingFunctionSource#SAME} (the caller sets the function's source).
     *
     * @throws IllegalArgumentException if the function returns without making a call
     * @throws Exception what the function throws
     */
    public static NextHop.Call start(SequentialChain<?, ?> function, @Nullable Object input) throws Exception {
        Replay replay = new Replay(List.of(), List.of(), Integer.MAX_VALUE);
        Object value = runOnce(function, replay, input, "the client");
        if (replay.pending == null) {
            throw new IllegalArgumentException("sequential chain " + function.getClass().getName() + " returned "
                    + value + " without making a call: there is no chain to run; call it directly");
        }
        List<String> calls = List.of(replay.pending.key());
        return NextHop.call(replay.pending.server, replay.pending.function, replay.pending.params,
                ChainState.of(INPUT, input, RESULTS, new ArrayList<>(), CALLS, new ArrayList<>(calls)));
    }

    /**
     * One hop of a sequential chain, after the service function of its last call returned
     * {@code result}: replays {@code function} with the results recorded in {@code state} and
     * {@code result}, and returns the next call, or the end of the chain with what it returned.
     *
     * @throws FunctionFailure with {@link io.rpcc.core.ChainErrorCode#REPLAY_DIVERGED} if the replay
     *     makes another call than the one recorded at a position, or returns before a recorded call
     * @throws Exception what the function throws
     */
    public static NextHop step(SequentialChain<?, ?> function, ChainState state, @Nullable Object result) throws Exception {
        List<?> recordedResults = state.get(RESULTS, List.class);
        List<?> recordedCalls = state.get(CALLS, List.class);
        if (recordedResults == null || recordedCalls == null || recordedCalls.size() != recordedResults.size() + 1) {
            throw new IllegalStateException("sequential chain " + function.getClass().getName() + " runs with a state "
                    + "that is not a sequential chain's (" + state.names() + "): start it with ChainCall.sequential");
        }
        List<Object> results = new ArrayList<>(recordedResults.size() + 1);
        results.addAll(recordedResults);
        results.add(result);
        List<String> calls = new ArrayList<>(recordedCalls.size() + 1);
        for (Object c : recordedCalls) {
            calls.add((String) c);
        }
        // the code up to the first call ran at the client, quietly: the first hop prints and replies for it
        Replay replay = new Replay(results, calls, results.size() == 1 ? 0 : results.size());
        Object input = state.get(INPUT);
        Object value = runOnce(function, replay, input, hopName());
        if (replay.pending == null) {
            if (replay.position < results.size()) {
                throw FunctionFailure.replayDiverged("sequential chain " + function.getClass().getName()
                        + " returned after " + replay.position + " calls when replayed, but it had made "
                        + results.size() + " (the next was " + calls.get(replay.position) + "): its code is not "
                        + "deterministic; make it depend only on its input and its calls' results");
            }
            return NextHop.end(value);
        }
        calls.add(replay.pending.key());
        return NextHop.call(replay.pending.server, replay.pending.function, replay.pending.params,
                state.with(RESULTS, results).with(CALLS, calls));
    }

    private static String hopName() {
        ChainContext ctx = ChainContext.currentOrNull();
        return ctx == null ? "this node" : "hop " + ctx.hop() + " at " + ctx.node();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static @Nullable Object runOnce(SequentialChain function, Replay replay, @Nullable Object input,
                                            String where) throws Exception {
        Object value = null;
        boolean stopped = false;
        try {
            value = function.run(replay, input);
        } catch (Stop s) {
            if (s.replay != replay) {
                throw s;
            }
            stopped = true;
        } catch (Exception e) {
            if (replay.failure != null) {
                throw replay.failure;
            }
            if (replay.pending != null) {
                throw swallowed(function, replay, where, "threw " + e.getClass().getName());
            }
            throw e;
        }
        if (replay.failure != null) {
            throw replay.failure; // a divergence or the limit, even if the function caught it
        }
        if (replay.pending != null && !stopped) {
            throw swallowed(function, replay, where, "returned");
        }
        return value;
    }

    private static FunctionFailure swallowed(SequentialChain<?, ?> function, Replay replay, String where, String what) {
        return FunctionFailure.failed(IllegalStateException.class.getName(), "sequential chain "
                + function.getClass().getName() + " " + what + " at " + where + " after its call " + replay.pending.key()
                + " (call " + (replay.position + 1) + ") stopped the run: the stop of a call that is not made yet must "
                + "end run(); do not return from a finally block or catch Throwable around calls", List.of(), null);
    }

    /** The stop at the first call not made yet: no stack trace, never caught by the function. */
    private static final class Stop extends Error {
        private static final long serialVersionUID = 1L;
        private final transient Replay replay;

        Stop(Replay replay) {
            super("a sequential chain stops at its next call; this is not an error", null, false, false);
            this.replay = replay;
        }
    }

    private record Pending(String server, String function, @Nullable Object params) {
        String key() {
            return function + "@" + server;
        }
    }

    /** One run of a sequential chain: its recorded results and calls, and the call that stopped it. */
    private static final class Replay implements Hops {
        private final List<Object> results;
        private final List<String> calls;
        /** The calls returned before the code that runs for the first time (console and replies go out). */
        private final int liveFrom;
        private final Map<String, Object> views = new HashMap<>();
        private int position;
        private @Nullable Pending pending;
        /** A divergence or the call limit, thrown at a call: it fails the chain even if the function catches it. */
        private @Nullable RuntimeException failure;
        private @Nullable VirtualConsole console;

        Replay(List<Object> results, List<String> calls, int liveFrom) {
            this.results = results;
            this.calls = calls;
            this.liveFrom = liveFrom;
        }

        private boolean live() {
            return position >= liveFrom;
        }

        @Override
        public <T> T at(String server, Class<T> serviceInterface) {
            Objects.requireNonNull(server, "server");
            if (!serviceInterface.isInterface()) {
                throw new IllegalArgumentException(serviceInterface.getName() + " is not an interface: hops.at takes "
                        + "a service interface (an interface whose methods carry @ServiceMethod)");
            }
            Object view = views.computeIfAbsent(serviceInterface.getName() + "@" + server, k ->
                    Proxy.newProxyInstance(serviceInterface.getClassLoader(), new Class<?>[] {serviceInterface},
                            new View(this, server, serviceInterface)));
            return serviceInterface.cast(view);
        }

        @Override
        public @Nullable Object call(String server, String serviceFunction, @Nullable Object params) {
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(serviceFunction, "serviceFunction");
            if (failure != null) {
                throw failure; // the function caught it and called again
            }
            if (pending != null) {
                throw new Stop(this); // after the stop, in a finally block: stop again
            }
            String key = serviceFunction + "@" + server;
            if (position < results.size()) {
                String recorded = calls.get(position);
                if (!recorded.equals(key)) {
                    throw failure = FunctionFailure.replayDiverged("sequential chain replayed at " + hopName() + " made call "
                            + (position + 1) + " to " + key + ", but that call was " + recorded + " when first made: "
                            + "its code is not deterministic; make it depend only on its input and its calls' results");
                }
                return results.get(position++);
            }
            if (position >= MAX_CALLS) {
                throw failure = new IllegalStateException("a sequential chain makes at most " + MAX_CALLS + " calls (each hop "
                        + "replays the calls before it); this one makes a call to " + key + " past that: write long "
                        + "chains as a ChainingFunction");
            }
            pending = new Pending(server, serviceFunction, params);
            throw new Stop(this);
        }

        @Override
        public <T> @Nullable T call(String server, String serviceFunction, @Nullable Object params, Class<T> resultType) {
            return resultType.cast(call(server, serviceFunction, params));
        }

        @Override
        public VirtualConsole console() {
            if (console == null) {
                ChainContext ctx = ChainContext.currentOrNull();
                VirtualConsole real = ctx == null ? null : ctx.console();
                console = new VirtualConsole(0, "", "", new AbstractList<ConsoleLine>() {
                    @Override
                    public boolean add(ConsoleLine line) {
                        if (real != null && live()) {
                            real.println(line.text());
                        }
                        return true;
                    }

                    @Override
                    public ConsoleLine get(int index) {
                        throw new IndexOutOfBoundsException(index);
                    }

                    @Override
                    public int size() {
                        return 0;
                    }
                });
            }
            return console;
        }

        @Override
        public void preturn(Object value) {
            ChainContext ctx = ChainContext.currentOrNull();
            if (ctx != null && live()) {
                ctx.preturn(value);
            }
        }

        @Override
        public int calls() {
            return position + (pending == null ? 0 : 1);
        }

        @Override
        public String toString() {
            return "Hops[" + calls() + " calls]";
        }
    }

    /** A service interface's view of one server: its methods are calls. */
    private record View(Replay replay, String server, Class<?> type) implements InvocationHandler {
        @Override
        public @Nullable Object invoke(Object proxy, Method method, @Nullable Object @Nullable [] args) {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> args != null && proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> type.getName() + " at " + server;
                };
            }
            String function = ServiceMethods.name(method);
            if (ServiceMethods.takesStream(method)) {
                throw new IllegalArgumentException("service function '" + function + "' (" + type.getName() + "."
                        + method.getName() + ") reads a data stream, which a sequential chain cannot send: start"
                        + " a chain to it with ChainCall.stream instead");
            }
            Object result = replay.call(server, function, ServiceMethods.params(args));
            return ServiceMethods.convert(result, method.getReturnType(), function + "@" + server);
        }
    }
}
