package io.rpcc.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A chain that visits a fixed list of (server, service function) pairs, turned into chaining
 * functions (paper section 3.1: static lists are a special case of chaining functions). Each
 * service function receives the previous one's result as its parameters; the last result ends the
 * chain.
 *
 * <pre>{@code
 * StaticRoute route = StaticRoute.of(
 *     StaticRoute.hop("storage-1", "read"),
 *     StaticRoute.hop("transcoder", "toPng"),
 *     StaticRoute.hop("storage-2", "write"));
 * ChainResult r = client.startChain(route, "/photos/cat.jpg").join();
 * }</pre>
 *
 * <p>All routes share one generic chaining function ({@link #CHAINING_FUNCTION}), which is
 * compiled once per server; the route itself travels in the chain state.
 */
public final class StaticRoute {
    /** State entry holding the servers of the route. */
    public static final String SERVERS = "rpcc.route.servers";
    /** State entry holding the service functions of the route. */
    public static final String FUNCTIONS = "rpcc.route.functions";
    /** State entry holding the index of the next hop in the route. */
    public static final String NEXT = "rpcc.route.next";

    /** The chaining function that walks every static route. */
    public static final ChainingFunctionSource CHAINING_FUNCTION = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.List;

            /** Walks a static route kept in the chain state (see io.rpcc.core.StaticRoute). */
            public class StaticRouteStep implements ChainingFunction {
                @SuppressWarnings("unchecked")
                public NextHop apply(ChainState state, Object result) {
                    List<String> servers = (List<String>) state.get(StaticRoute.SERVERS);
                    List<String> functions = (List<String>) state.get(StaticRoute.FUNCTIONS);
                    int next = state.get(StaticRoute.NEXT, Integer.class);
                    if (next >= servers.size()) {
                        return NextHop.end(result);
                    }
                    return NextHop.call(servers.get(next), functions.get(next), result,
                            state.with(StaticRoute.NEXT, next + 1));
                }
            }
            """);

    /**
     * One step of a route.
     *
     * @param server the server's name
     * @param serviceFunction the service function to call there
     */
    public record Hop(String server, String serviceFunction) {
        public Hop {
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(serviceFunction, "serviceFunction");
        }
    }

    private final List<Hop> hops;

    private StaticRoute(List<Hop> hops) {
        if (hops.isEmpty()) {
            throw new IllegalArgumentException("a route needs at least one hop");
        }
        this.hops = List.copyOf(hops);
    }

    /** A step: call {@code serviceFunction} on {@code server}. */
    public static Hop hop(String server, String serviceFunction) {
        return new Hop(server, serviceFunction);
    }

    /** A route through {@code hops}, in order. */
    public static StaticRoute of(Hop... hops) {
        return new StaticRoute(List.of(hops));
    }

    /** A route through {@code hops}, in order. */
    public static StaticRoute of(List<Hop> hops) {
        return new StaticRoute(hops);
    }

    /** The hops. */
    public List<Hop> hops() {
        return hops;
    }

    /** The first server, where the chain starts. */
    public String firstServer() {
        return hops.get(0).server();
    }

    /** The first service function. */
    public String firstServiceFunction() {
        return hops.get(0).serviceFunction();
    }

    /** The chaining function to start the chain with. */
    public ChainingFunctionSource chainingFunction() {
        return hops.size() == 1 ? ChainingFunctionSource.NONE : CHAINING_FUNCTION;
    }

    /** The state to start the chain with: the route itself. */
    public ChainState initialState() {
        if (hops.size() == 1) {
            return ChainState.empty();
        }
        List<String> servers = new ArrayList<>();
        List<String> functions = new ArrayList<>();
        for (Hop h : hops) {
            servers.add(h.server());
            functions.add(h.serviceFunction());
        }
        return ChainState.of(SERVERS, servers, FUNCTIONS, functions, NEXT, 1);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("StaticRoute[");
        for (int i = 0; i < hops.size(); i++) {
            sb.append(i == 0 ? "" : " → ").append(hops.get(i).server()).append('.').append(hops.get(i).serviceFunction());
        }
        return sb.append(']').toString();
    }
}
