package io.rpcc.examples;

import java.util.Locale;

/**
 * One result line of a scenario runner: a variant's median at one parameter value, or the ideal
 * computed from the topology for a variant. With {@code --json}, runners print one of these per
 * line:
 *
 * <pre>
 * {"scenario":"webmail","variant":"chain","param":10,"median_ms":198.80,"hops":4}
 * {"scenario":"webmail","variant":"ideal","for":"chain","param":10,"median_ms":185.20,"hops":4}
 * {"scenario":"copy","variant":"rpc","param":500,"client":"Redmond","median_ms":223.00,"bytes_via_client":1050000,"hops":4}
 * </pre>
 *
 * @param scenario the scenario ({@code state-size}, {@code copy}, {@code copy-load}, {@code webmail})
 * @param variant {@code chain}, {@code rpc}, {@code grpc} or {@code ideal}
 * @param idealFor for an {@code ideal} line, the variant whose message path it is computed for;
 *     otherwise {@code null}
 * @param param the parameter (a size in KB, or a number of clients)
 * @param site the client's site where the scenario varies it, else {@code null}
 * @param medianMs the median time, in milliseconds
 * @param hops service-function invocations on the critical path (the per-hop allowance of the
 *     ideal check counts these)
 * @param bytesViaClient bytes that crossed the client's links per operation, or -1 if not measured
 * @param throughputMbS megabytes per second, or NaN if not measured
 * @param bytesViaPrimary bytes that went in or out of the destination primary's site per operation
 *     (replicated copy), or -1 if not measured
 */
public record Measurement(String scenario, String variant, String idealFor, int param, String site, double medianMs,
                          int hops, long bytesViaClient, double throughputMbS, long bytesViaPrimary) {

    /** A measured variant. */
    public static Measurement measured(String scenario, String variant, int param, double medianMs, int hops) {
        return new Measurement(scenario, variant, null, param, null, medianMs, hops, -1, Double.NaN, -1);
    }

    /** The ideal time of {@code variant}'s message path, computed from the topology. */
    public static Measurement ideal(String scenario, String variant, int param, double medianMs, int hops) {
        return new Measurement(scenario, "ideal", variant, param, null, medianMs, hops, -1, Double.NaN, -1);
    }

    /** This line, for a client in {@code site}. */
    public Measurement at(String site) {
        return new Measurement(scenario, variant, idealFor, param, site, medianMs, hops, bytesViaClient, throughputMbS,
                bytesViaPrimary);
    }

    /** This line with the bytes that crossed the client's links. */
    public Measurement withBytesViaClient(long bytes) {
        return new Measurement(scenario, variant, idealFor, param, site, medianMs, hops, bytes, throughputMbS,
                bytesViaPrimary);
    }

    /** This line with a throughput. */
    public Measurement withThroughput(double megabytesPerSecond) {
        return new Measurement(scenario, variant, idealFor, param, site, medianMs, hops, bytesViaClient, megabytesPerSecond,
                bytesViaPrimary);
    }

    /** This line with the bytes that went in or out of the destination primary's site. */
    public Measurement withBytesViaPrimary(long bytes) {
        return new Measurement(scenario, variant, idealFor, param, site, medianMs, hops, bytesViaClient, throughputMbS,
                bytes);
    }

    /** Whether this is an ideal computed from the topology rather than a measurement. */
    public boolean isIdeal() {
        return idealFor != null;
    }

    /** {@code chain}, {@code rpc}, ... or {@code ideal chain}, {@code ideal rpc}. */
    public String label() {
        return isIdeal() ? "ideal " + idealFor : variant;
    }

    /**
     * The most a measurement may take to count as close to this ideal: 10% above it plus 1 ms
     * per hop.
     */
    public double allowedMs() {
        return medianMs * 1.10 + hops;
    }

    /** One JSON object. */
    public String json() {
        StringBuilder b = new StringBuilder()
                .append("{\"scenario\":\"").append(scenario).append('"')
                .append(",\"variant\":\"").append(variant).append('"');
        if (idealFor != null) {
            b.append(",\"for\":\"").append(idealFor).append('"');
        }
        b.append(",\"param\":").append(param);
        if (site != null) {
            b.append(",\"client\":\"").append(site).append('"');
        }
        b.append(String.format(Locale.ROOT, ",\"median_ms\":%.2f", medianMs)).append(",\"hops\":").append(hops);
        if (bytesViaClient >= 0) {
            b.append(",\"bytes_via_client\":").append(bytesViaClient);
        }
        if (bytesViaPrimary >= 0) {
            b.append(",\"bytes_via_primary\":").append(bytesViaPrimary);
        }
        if (!Double.isNaN(throughputMbS)) {
            b.append(String.format(Locale.ROOT, ",\"throughput_mb_s\":%.3f", throughputMbS));
        }
        return b.append('}').toString();
    }
}
