package io.rpcc.examples.aggregation;

import java.util.ArrayList;
import java.util.List;

/**
 * A data source of the scenario: it produces {@code count} records, the first after
 * {@code firstMs} and then one every {@code gapMs}.
 *
 * @param name the source server's name
 * @param count how many records
 * @param firstMs when the first is ready, in ms after the request
 * @param gapMs the time between records
 */
public record Source(String name, int count, long firstMs, long gapMs) {

    /** The production times of this source's records, in ms after the request. */
    public List<Long> productionTimesMs() {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(firstMs + i * gapMs);
        }
        return out;
    }

    /** The default scenario: fast, medium and slow sources and one straggler. */
    public static List<Source> defaults() {
        return List.of(
                new Source("fast", 10, 5, 5),
                new Source("medium", 10, 20, 20),
                new Source("slow", 5, 50, 50),
                new Source("straggler", 3, 400, 50));
    }
}
