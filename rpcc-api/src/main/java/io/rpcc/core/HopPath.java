package io.rpcc.core;

import java.util.ArrayList;
import java.util.List;

/**
 * How a chain's path ({@link ChainResult#path()}, {@link ChainException#path()}) stays bounded: a
 * chain carries the names of the servers it visited in every request, so a path that grew with
 * every hop would make each hop of a long chain cost more than the one before. A path of more than
 * {@code 2 × }{@link #KEPT_AT_EACH_END}{@code  + 1} entries keeps its first and its last
 * {@link #KEPT_AT_EACH_END} names; a single entry between them, an <em>elision</em> such as
 * {@code "… 268 hops …"}, stands for the names left out and says how many. The first hops (where
 * the chain came from) and the last ones (where it failed or ended) are always named.
 *
 * <pre>{@code
 * ChainResult r = client.startChain(route, input).join();
 * int visited = HopPath.visited(r.path());        // the same as r.hops()
 * for (String entry : r.path()) {
 *     if (HopPath.isElision(entry)) {
 *         System.out.println("(" + HopPath.elided(entry) + " servers not recorded)");
 *     }
 * }
 * }</pre>
 *
 * <p>A node name of the exact form of an elision ({@code "… "}, digits, {@code " hops …"}) would be
 * read as one; don't name a node so. The hop timings ({@link ChainResult#timings()}) are bounded the
 * same way ({@link #MAX_TIMINGS}), their hop numbers showing the gap.
 */
public final class HopPath {
    /** How many names a bounded path keeps at its start and at its end. */
    public static final int KEPT_AT_EACH_END = 16;
    /** The most entries a bounded path has: the names kept at both ends and one elision. */
    public static final int MAX_ENTRIES = 2 * KEPT_AT_EACH_END + 1;
    /** The most hop timings a chain carries: those of its first and last {@link #KEPT_AT_EACH_END} timings. */
    public static final int MAX_TIMINGS = 2 * KEPT_AT_EACH_END;

    private static final String ELISION_START = "… ";
    private static final String ELISION_END = " hops …";

    private HopPath() {
    }

    /** The entry that stands for {@code hops} (≥ 1) names left out. */
    public static String elision(long hops) {
        if (hops < 1) {
            throw new IllegalArgumentException("an elision stands for at least one hop: " + hops);
        }
        return ELISION_START + hops + ELISION_END;
    }

    /** Whether {@code entry} of a path is an elision rather than a server's name. */
    public static boolean isElision(String entry) {
        return elided(entry) > 0;
    }

    /** How many names the elision {@code entry} stands for; 0 if it is a server's name. */
    public static long elided(String entry) {
        if (entry == null || entry.length() <= ELISION_START.length() + ELISION_END.length()
                || entry.length() > ELISION_START.length() + ELISION_END.length() + 18
                || !entry.startsWith(ELISION_START) || !entry.endsWith(ELISION_END)) {
            return 0;
        }
        long n = 0;
        for (int i = ELISION_START.length(); i < entry.length() - ELISION_END.length(); i++) {
            char c = entry.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    /** How many servers {@code path} stands for: its names and what its elisions stand for. */
    public static long visited(List<String> path) {
        long n = 0;
        for (String entry : path) {
            long e = elided(entry);
            n += e > 0 ? e : 1;
        }
        return n;
    }

    /** {@code path} followed by {@code node}, bounded ({@link #bounded}). */
    public static List<String> through(List<String> path, String node) {
        List<String> next = new ArrayList<>(Math.min(path.size(), MAX_ENTRIES) + 1);
        if (path.size() < MAX_ENTRIES) {
            next.addAll(path);
        } else {
            next.addAll(bounded(path));
        }
        next.add(node);
        return next.size() > MAX_ENTRIES ? bounded(next) : next;
    }

    /**
     * {@code path} with at most {@link #MAX_ENTRIES} entries: itself if it has no more, else its
     * first and last {@link #KEPT_AT_EACH_END} entries with one elision between them for all it
     * leaves out (their names, and what elisions among them stood for).
     */
    public static List<String> bounded(List<String> path) {
        if (path.size() <= MAX_ENTRIES) {
            return path;
        }
        long left = visited(path.subList(KEPT_AT_EACH_END, path.size() - KEPT_AT_EACH_END));
        List<String> out = new ArrayList<>(MAX_ENTRIES);
        out.addAll(path.subList(0, KEPT_AT_EACH_END));
        out.add(elision(left));
        out.addAll(path.subList(path.size() - KEPT_AT_EACH_END, path.size()));
        return out;
    }

    /**
     * The entries of {@code path} that stand for the servers after its first {@code before} (as
     * {@link #visited} counts them): the part a path gained since it stood for {@code before}
     * servers, an elision among them cut to the hops it stands for after that point.
     */
    public static List<String> after(List<String> path, long before) {
        long wanted = visited(path) - before;
        List<String> out = new ArrayList<>();
        for (int i = path.size() - 1; i >= 0 && wanted > 0; i--) {
            String entry = path.get(i);
            long e = elided(entry);
            long stands = e > 0 ? e : 1;
            if (stands <= wanted) {
                out.add(entry);
                wanted -= stands;
            } else {
                out.add(elision(wanted));
                wanted = 0;
            }
        }
        return out.reversed();
    }
}
