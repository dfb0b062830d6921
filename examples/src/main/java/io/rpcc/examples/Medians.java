package io.rpcc.examples;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The median the scenario runners report, as the paper does. */
public final class Medians {
    private Medians() {
    }

    /** The median of {@code xs} (the upper one for an even count). */
    public static double median(List<Double> xs) {
        List<Double> sorted = new ArrayList<>(xs);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
