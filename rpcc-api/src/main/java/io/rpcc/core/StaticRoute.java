package io.rpcc.core;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
 * <p>All routes share one generic chaining function ({@link #CHAINING_FUNCTION}), which every node
 * runs as its own code ({@link #next}); the route itself travels in the chain state ({@link #ROUTE}),
 * one array that each hop passes on as it came.
 */
public final class StaticRoute {
    /**
     * State entry holding the route itself, every hop of it, as a {@code byte[]} in the layout below.
     * A hop reads only the entry of the hop it calls next and passes the array on as it came, so the
     * cost of a hop does not grow with the route's length.
     *
     * <pre>
     * route   := layout:byte(1)  hops:int32  offset:int32 × hops  entry*
     * entry   := serverChars:int32  server:char × serverChars  functionChars:int32  function:char × functionChars
     * </pre>
     *
     * <p>Integers and characters are big-endian ({@code char}: a UTF-16 code unit); offset {@code i}
     * is the index in the array of hop {@code i}'s entry, and hops with the same server and service
     * function share one entry. See docs/reference/protocol.md, section 7.
     */
    public static final String ROUTE = "rpcc.route";
    /** State entry holding the index of the next hop in the route (an {@code Integer}, from 1). */
    public static final String NEXT = "rpcc.route.next";
    /** The route layout {@link #ROUTE} holds (its first byte). */
    public static final int LAYOUT = 1;

    /**
     * The chaining function that walks every static route: {@link #next(ChainState, Object)}. Every
     * hop carries its text, so it is kept short.
     */
    public static final ChainingFunctionSource CHAINING_FUNCTION = ChainingFunctionSource.java("""
            import io.rpcc.core.*;

            /** Walks a static route kept in the chain state (see io.rpcc.core.StaticRoute). */
            public class StaticRouteStep implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return StaticRoute.next(state, result);
                }
            }
            """);

    /**
     * The step every hop of a static route takes after its service function: the call of the next
     * hop in {@code state}'s route ({@link #ROUTE}, at index {@link #NEXT}), or the end of the chain
     * with {@code result} after the last. It reads the index, the one offset that points at the next
     * hop's entry and that entry's two names, and passes the route on as the same array: its cost does
     * not depend on the route's length. The state comes from the chain's originator or the hop before,
     * so every offset and length is checked against the array before it is used.
     *
     * @throws IllegalArgumentException if the route is malformed (a hop's chaining function that
     *     throws fails the hop with {@link ChainErrorCode#CHAINING_FUNCTION_FAILED})
     * @throws ClassCastException if the route or the index is of another type
     * @throws NullPointerException if the state has no route
     */
    public static NextHop next(ChainState state, @Nullable Object result) {
        byte[] route = (byte[]) state.get(ROUTE);
        int next = state.get(NEXT, Integer.class);
        if (route.length < 5 || route[0] != LAYOUT) {
            throw malformed("it is not a static route of layout " + LAYOUT);
        }
        int hops = intAt(route, 1);
        if (hops < 1 || hops > (route.length - 5) / 4 || next < 0) {
            throw malformed("a route of " + hops + " hops in " + route.length + " bytes, next hop " + next);
        }
        if (next >= hops) {
            return NextHop.end(result);
        }
        int at = intAt(route, 5 + 4 * next);
        String server = name(route, at);
        String function = name(route, at + 4 + 2 * server.length());
        return NextHop.call(server, function, result, state.with(NEXT, next + 1));
    }

    private static int intAt(byte[] b, int at) {
        if (at < 0 || at > b.length - 4) {
            throw malformed("an offset or length at byte " + at + " of " + b.length);
        }
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }

    private static String name(byte[] b, int at) {
        int chars = intAt(b, at);
        if (chars < 0 || chars > (b.length - at - 4) / 2) {
            throw malformed("a name of " + chars + " characters at byte " + at + " of " + b.length);
        }
        char[] c = new char[chars];
        for (int i = 0, p = at + 4; i < chars; i++, p += 2) {
            c[i] = (char) ((b[p] & 0xFF) << 8 | b[p + 1] & 0xFF);
        }
        return new String(c);
    }

    private static IllegalArgumentException malformed(String what) {
        return new IllegalArgumentException("the chain state's static route (" + ROUTE + ") is malformed: " + what
                + ". StaticRoute never writes such a route: the chain's originator or an earlier hop sent a state of "
                + "its own with the static routes' chaining function; start a static route with "
                + "ChainCall.along(route, params)");
    }

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

    /** The state to start the chain with: the route itself ({@link #ROUTE}) and the next hop's index. */
    public ChainState initialState() {
        if (hops.size() == 1) {
            return ChainState.empty();
        }
        return ChainState.of(ROUTE, encoded(), NEXT, 1);
    }

    /** The route in {@link #ROUTE}'s layout, hops of the same server and service function sharing an entry. */
    private byte[] encoded() {
        Map<Hop, Integer> entries = new LinkedHashMap<>();
        int size = 5 + 4 * hops.size();
        for (Hop h : hops) {
            if (!entries.containsKey(h)) {
                entries.put(h, size);
                size = Math.addExact(size, Math.addExact(8, Math.multiplyExact(2,
                        h.server().length() + h.serviceFunction().length())));
            }
        }
        ByteBuffer route = ByteBuffer.allocate(size); // big-endian
        route.put((byte) LAYOUT).putInt(hops.size());
        for (Hop h : hops) {
            route.putInt(entries.get(h));
        }
        for (Hop h : entries.keySet()) {
            route.putInt(h.server().length());
            route.asCharBuffer().put(h.server());
            route.position(route.position() + 2 * h.server().length());
            route.putInt(h.serviceFunction().length());
            route.asCharBuffer().put(h.serviceFunction());
            route.position(route.position() + 2 * h.serviceFunction().length());
        }
        return route.array();
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
