package io.rpcc.client.internal;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopTiming;
import io.rpcc.core.StateChoice;
import io.rpcc.core.internal.chain.HopRouter;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.WireFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The adaptive state fall-back of one client ({@code StateFallback.ADAPTIVE}, paper sections 5.2.2
 * and 6): before a hop whose chaining function needs the chain's state, whether to send the state
 * with the hop (carry: the server runs the chaining function and the chain goes on in chain mode) or
 * keep it here (fall back: the hop's result comes back and this node runs the chaining function, as
 * in interactive mode). With {@code X} the hop's server, {@code N} the server after it and {@code S}
 * the state's encoded size:
 *
 * <pre>
 * carry    = oneWay(here → X) + S / throughput(here → X) + oneWay(X → N)
 * fallback = oneWay(here → X) + oneWay(X → here)         + oneWay(here → N)
 * </pre>
 *
 * and the cheaper is chosen (carry on a tie). The round trips and throughput are this node's
 * measurements of its connections ({@link HopRouter#link}); {@code N} and {@code oneWay(X → N)}
 * are learned from earlier runs of the same chaining function at the same server: the next server
 * its results named, and, from chains that carried the state there, the time their crossings
 * between servers took (the step's elapsed time less the crossings this node measured and the time
 * the hops report at the nodes, which at the first server includes the reading of the state; the
 * shortest of the last few, as what else is in it only ever lengthens it). Before anything is learned, {@code N} is
 * taken to be beside {@code X} ({@code oneWay(X → N) = 0}, {@code oneWay(here → N) = oneWay(here → X)}):
 * the paper's rule, carry while {@code S < latency × bandwidth}. Without a measured throughput the
 * state is carried (a large frame measures it). Thread-safe.
 */
public final class StateFallbacks {
    /** The most (chaining function, server) pairs remembered; past it the memory starts over. */
    static final int MAX_LEARNED = 1024;
    /** A hop that took longer than this to load its chaining function compiled it: its step teaches nothing. */
    static final long COMPILING_NANOS = 1_000_000;

    private final Map<Key, Learned> learned = new LinkedHashMap<>(); // guarded by itself

    private record Key(String chainingFunction, String server) {
    }

    /**
     * What was learned of a chaining function at a server: the next server its results named (or
     * {@code null}) and the recent samples of the time of a crossing between servers after it.
     */
    static final class Learned {
        static final int WINDOW = 8;
        final String next;
        private final long[] onward = new long[WINDOW];
        private int count;
        private int at;

        Learned(String next) {
            this.next = next;
        }

        String next() {
            return next;
        }

        void sample(long nanos) {
            onward[at] = nanos;
            at = (at + 1) % WINDOW;
            count = Math.min(WINDOW, count + 1);
        }

        /**
         * The shortest of the recent samples, or -1 if none: what is left of a step after the
         * crossings measured here only grows with queues, collections and busy cores, so the
         * shortest is the nearest to the crossings' own time.
         */
        long onwardNanos() {
            long min = -1;
            for (int i = 0; i < count; i++) {
                min = min < 0 ? onward[i] : Math.min(min, onward[i]);
            }
            return min;
        }
    }

    /**
     * The measurements one choice is made of (times in nanoseconds, -1: not measured).
     *
     * @param stateBytes the state's encoded size
     * @param toServer the link here → the hop's server
     * @param next the server after it, or {@code null} if not known
     * @param toNext the link here → that server ({@link HopRouter.Link#UNKNOWN} if not known)
     * @param onwardNanos the learned one-way time from the hop's server to the next, or -1
     */
    public record Inputs(long stateBytes, HopRouter.Link toServer, String next, HopRouter.Link toNext,
                         long onwardNanos) {
    }

    /** Chooses for hop {@code hop} at {@code server} from {@code in} (see the class comment). */
    public static StateChoice choose(int hop, String server, Inputs in) {
        return choose(hop, server, in, false);
    }

    /**
     * As {@link #choose(int, String, Inputs)}; {@code atLeast}: {@code in.stateBytes()} is where the
     * counting of the state stopped, past the break-even size (the state is at least that large).
     */
    static StateChoice choose(int hop, String server, Inputs in, boolean atLeast) {
        long s = in.stateBytes();
        long out = in.toServer().oneWayNanos();
        if (out < 0) {
            return new StateChoice(hop, server, s, true, -1, -1, "no round trip to '" + server
                    + "' measured yet: carried");
        }
        long bw = in.toServer().bytesPerSecond();
        if (bw <= 0) {
            return new StateChoice(hop, server, s, true, -1, -1, "no throughput to '" + server
                    + "' measured yet (a frame of 64 KB or more measures it): carried");
        }
        long transmission = (long) Math.ceil(s * 1e9 / bw); // (rounded up: consistent with breakEvenBytes)
        boolean nextKnown = in.next() != null;
        long onward = in.onwardNanos() >= 0 ? in.onwardNanos() : 0;
        long toNext = in.toNext().oneWayNanos() >= 0 ? in.toNext().oneWayNanos() : out;
        long carry = out + transmission + onward;
        long fallback = out + out + toNext;
        boolean carried = carry <= fallback;
        String nextName = nextKnown ? "'" + in.next() + "'" : "the next server (taken to be beside it)";
        String reason = String.format(Locale.ROOT,
                "state %s%.1f KB at %.2f MB/s to '%s' takes %s%.1f ms, and %s from there %s; kept, the result comes back "
                        + "(%.1f ms) and %s goes out from here (%.1f ms)",
                atLeast ? "over " : "", s / 1024.0, bw / 1e6, server, atLeast ? "over " : "", transmission / 1e6, nextName,
                in.onwardNanos() >= 0 ? String.format(Locale.ROOT, "%.1f ms (learned)", onward / 1e6) : "0 ms (not learned yet)",
                out / 1e6, nextKnown ? "the hop to '" + in.next() + "'" : "the next hop", toNext / 1e6);
        return new StateChoice(hop, server, s, carried, carry, fallback, reason);
    }

    /**
     * Chooses for hop {@code hop}: {@code state} for {@code cf}, which runs after the service
     * function at {@code server}, measured on {@code node}'s connections. The state's size is counted
     * only up to the break-even size of this hop ({@link #breakEvenBytes}): past it the state is kept
     * whatever its size, so the rest of it is not written out to be counted.
     */
    public StateChoice choose(Node node, int hop, String server, ChainingFunctionSource cf, ChainState state) {
        String next;
        long onward;
        synchronized (learned) {
            Learned l = learned.get(new Key(cf.id(), server));
            next = l == null ? null : l.next();
            onward = l == null ? -1 : l.onwardNanos();
        }
        HopRouter.Link toServer = node.router().link(server);
        HopRouter.Link toNext = next == null ? HopRouter.Link.UNKNOWN : node.router().link(next);
        Inputs measured = new Inputs(-1, toServer, next, toNext, onward);
        WireFormat.StateSize size;
        try {
            size = node.transport().wire().stateSize(state, countingLimit(measured)); // (exact up to the limit)
        } catch (RuntimeException e) { // (sending it fails the same way, and says so)
            return new StateChoice(hop, server, -1, true, -1, -1, "the state's size could not be measured: carried");
        }
        return choose(hop, server, new Inputs(size.bytes(), toServer, next, toNext, onward), !size.exact());
    }

    /**
     * How far the state's size needs counting for {@code in} (its {@code stateBytes} unused): one
     * byte past the break-even size, or all of it when nothing is measured yet (the state is carried,
     * and a carried step's size is what {@link #carried} learns the crossings from).
     */
    static long countingLimit(Inputs in) {
        long breakEven = breakEvenBytes(in);
        return breakEven < 0 ? Long.MAX_VALUE : breakEven + 1;
    }

    /**
     * The largest state that {@link #choose(int, String, Inputs)} carries with {@code in}'s links (its
     * {@code stateBytes} unused): {@code (fallback − carry without the transmission) × throughput};
     * 0 if even an empty state would be kept, -1 if the links are not measured yet (any state is
     * carried).
     */
    static long breakEvenBytes(Inputs in) {
        long out = in.toServer().oneWayNanos();
        long bw = in.toServer().bytesPerSecond();
        if (out < 0 || bw <= 0) {
            return -1;
        }
        long onward = in.onwardNanos() >= 0 ? in.onwardNanos() : 0;
        long toNext = in.toNext().oneWayNanos() >= 0 ? in.toNext().oneWayNanos() : out;
        long slack = out + toNext - onward; // fallback − (carry − transmission)
        if (slack < 0) {
            return 0;
        }
        // the largest s with (long) (s * 1e9 / bw) <= slack, within a byte of floating-point rounding
        return (long) Math.floor(slack * (double) bw / 1e9);
    }

    /** The next server after {@code cf} at {@code server} was {@code next}. */
    public void sawNext(ChainingFunctionSource cf, String server, String next) {
        synchronized (learned) {
            learnedFor(new Key(cf.id(), server), next);
        }
    }

    /** What is kept of {@code k} with {@code next} as its next server (its samples dropped if that changed). */
    private Learned learnedFor(Key k, String next) {
        Learned l = learned.get(k);
        if (l == null || !next.equals(l.next())) {
            if (learned.size() >= MAX_LEARNED && l == null) {
                learned.clear();
            }
            l = new Learned(next);
            learned.put(k, l);
        }
        return l;
    }

    /**
     * A step that carried {@code choice}'s state to its server came back after {@code elapsedNanos}
     * having visited {@code path} (its server first) with {@code timings}: learns the next server
     * and the mean time of its crossings between servers, measured on {@code node}'s connections.
     */
    public void carried(Node node, ChainingFunctionSource cf, StateChoice choice, List<String> path,
                        List<HopTiming> timings, long elapsedNanos) {
        if (path.size() < 2 || !path.getFirst().equals(choice.server())
                || timings.stream().anyMatch(t -> t.compileNanos() > COMPILING_NANOS)) { // (no measure of the links)
            return;
        }
        long out = node.router().link(choice.server()).oneWayNanos();
        long back = node.router().link(path.getLast()).oneWayNanos();
        if (out < 0) {
            return;
        }
        long atNodes = timings.stream().mapToLong(HopTiming::totalNanos).sum();
        long onward = onwardSample(elapsedNanos, out, back >= 0 ? back : out, atNodes, path.size() - 1);
        synchronized (learned) {
            learnedFor(new Key(cf.id(), choice.server()), path.get(1)).sample(onward);
        }
    }

    /**
     * The mean time of one of {@code crossings} crossings between servers in a carried step that took
     * {@code elapsedNanos}: what is left after the crossing out ({@code outNanos}), the one back
     * ({@code backNanos}) and the time the hops report at the nodes ({@code atNodesNanos}). The state's
     * transmission is in the last: a hop's time at its node starts when the first bytes of its frame
     * are read, so the first server's includes the reading of the state.
     */
    static long onwardSample(long elapsedNanos, long outNanos, long backNanos, long atNodesNanos, int crossings) {
        return Math.max(0, (elapsedNanos - outNanos - backNanos - atNodesNanos) / crossings);
    }

    /** What was learned of {@code cf} at {@code server}: its next server and onward time, or {@code null}. */
    Learned learned(ChainingFunctionSource cf, String server) {
        synchronized (learned) {
            return learned.get(new Key(cf.id(), server));
        }
    }
}
