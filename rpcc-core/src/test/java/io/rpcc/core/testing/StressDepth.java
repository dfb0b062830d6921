package io.rpcc.core.testing;

import java.util.Locale;

/**
 * How deep the randomized stress tests go, one switch for all of them: by default each runs a size
 * that still covers thousands of chains (many thousands of interleavings of replies, cancels and
 * failures) in seconds; {@code -Drpcc.stress=long} runs each at its long size, several times the
 * default, for a soak before a release or after a change to the chain engine. A test's own
 * property (for example {@code -Drpcc.stress.chains=N}), where it has one, still sets its size
 * exactly and wins over both.
 *
 * <pre>{@code
 * static final int CHAINS = StressDepth.size("rpcc.stress.chains", 4_000, 10_000);
 * }</pre>
 */
public final class StressDepth {
    /** The system property that selects the depth: unset (or {@code default}) or {@code long}. */
    public static final String PROPERTY = "rpcc.stress";

    private StressDepth() {
    }

    /**
     * Whether {@code -Drpcc.stress=long} was given. Fails on any other value than {@code long} or
     * {@code default}, so that a misspelt value does not silently run the short size.
     */
    public static boolean isLong() {
        String value = System.getProperty(PROPERTY, "default").trim().toLowerCase(Locale.ROOT);
        return switch (value) {
            case "long" -> true;
            case "default", "" -> false;
            default -> throw new IllegalArgumentException("-D" + PROPERTY + "=" + System.getProperty(PROPERTY)
                    + " is not a stress depth: use -D" + PROPERTY + "=long for the long runs, or leave it unset");
        };
    }

    /** {@code defaultSize}, or {@code longSize} under {@code -Drpcc.stress=long}. */
    public static int size(int defaultSize, int longSize) {
        return isLong() ? longSize : defaultSize;
    }

    /**
     * The integer system property {@code ownProperty} if it is set, else {@link #size(int, int)}: a
     * test's own property sets its size exactly.
     */
    public static int size(String ownProperty, int defaultSize, int longSize) {
        Integer own = Integer.getInteger(ownProperty);
        return own != null ? own : size(defaultSize, longSize);
    }

    /** The system property that replays a randomized test's draws: {@code -Drpcc.stress.seed=N}. */
    public static final String SEED_PROPERTY = "rpcc.stress.seed";

    /**
     * The seed of a randomized run of {@code test}: {@code -Drpcc.stress.seed=N} if given, else a new
     * one. Prints it, with the property that replays it, so that a failed run can be repeated.
     */
    public static long seed(Class<?> test) {
        Long given = Long.getLong(SEED_PROPERTY);
        long seed = given != null ? given : System.nanoTime();
        System.out.println(test.getSimpleName() + " seed " + seed + " (-D" + SEED_PROPERTY + "=" + seed
                + " replays its random draws)");
        return seed;
    }

    /** A line for a test's output naming the depth it ran at: {@code "default depth"} or {@code "long depth"}. */
    public static String describe() {
        return (isLong() ? "long" : "default") + " depth (-D" + PROPERTY + "=long for the long runs)";
    }
}
