package io.rpcc.examples;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The lines a scenario runner produced, with look-ups for its table and the check against the
 * ideal: a measurement is close to its ideal when it takes at most 10% more plus 1 ms per hop.
 */
public final class Results {
    private final List<Measurement> lines = new ArrayList<>();

    /** Adds a line. */
    public Results add(Measurement m) {
        lines.add(m);
        return this;
    }

    /** Every line, in the order added. */
    public List<Measurement> lines() {
        return List.copyOf(lines);
    }

    /** The measurement of {@code variant} at {@code param} (and {@code site}, if not null). */
    public Measurement measured(String variant, int param, String site) {
        return find(variant, null, param, site);
    }

    /** The ideal of {@code variant} at {@code param} (and {@code site}, if not null). */
    public Measurement ideal(String variant, int param, String site) {
        return find("ideal", variant, param, site);
    }

    private Measurement find(String variant, String idealFor, int param, String site) {
        for (Measurement m : lines) {
            if (m.variant().equals(variant) && Objects.equals(m.idealFor(), idealFor) && m.param() == param
                    && (site == null || site.equals(m.site()))) {
                return m;
            }
        }
        throw new IllegalArgumentException("no line " + variant + (idealFor == null ? "" : " for " + idealFor)
                + " at " + param + (site == null ? "" : " from " + site));
    }

    /**
     * How far {@code measured} is above its ideal, as a table cell: {@code +7%} if within the
     * allowance (10% plus 1 ms per hop), {@code +23% !} if not.
     */
    public String versusIdeal(Measurement measured, String idealFor) {
        Measurement ideal = ideal(idealFor, measured.param(), measured.site());
        double over = 100 * (measured.medianMs() / ideal.medianMs() - 1);
        return String.format(Locale.ROOT, "%+.0f%%%s", over, measured.medianMs() <= ideal.allowedMs() ? "" : " !");
    }

    /**
     * Prints the results: one JSON object per line with {@code --json}, else {@code table}, then
     * where the chart went (if one was written).
     */
    public void print(Options options, Path chart, Runnable table) {
        if (options.json()) {
            printJson();
            return;
        }
        table.run();
        if (chart != null) {
            System.out.println("chart: " + chart);
        }
    }

    /** Prints one JSON object per line. */
    public void printJson() {
        lines.forEach(m -> System.out.println(m.json()));
    }

    /** The legend line under a table that has ideal-check cells. */
    public static String idealLegend() {
        return "(vs ideal: how much longer than computed from the topology; '!' marks more than 10% + 1 ms per hop)";
    }
}
