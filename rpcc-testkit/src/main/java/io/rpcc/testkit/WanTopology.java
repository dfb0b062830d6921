package io.rpcc.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Sites and the links between them: one-way latency and bandwidth for every pair, plus a link used
 * inside each site. Links are symmetric.
 *
 * <pre>{@code
 * WanTopology paper = WanTopology.paperFigure7();           // Mountain View, Redmond, Beijing, Cambridge
 * WanTopology mine = WanTopology.builder()
 *     .site("eu").site("us")
 *     .link("eu", "us", Duration.ofMillis(45), 5_000_000)   // one way, bytes per second
 *     .intraSite(Duration.ofMillis(1), 10_000_000)
 *     .build();
 * }</pre>
 */
public final class WanTopology {
    /** Mountain View, California (paper section 5). */
    public static final String MOUNTAIN_VIEW = "Mountain View";
    /** Redmond, Washington. */
    public static final String REDMOND = "Redmond";
    /** Beijing, China. */
    public static final String BEIJING = "Beijing";
    /** Cambridge, United Kingdom. */
    public static final String CAMBRIDGE = "Cambridge";

    /**
     * A link, one direction.
     *
     * @param latency one-way propagation delay
     * @param bytesPerSecond bandwidth
     */
    public record Link(Duration latency, long bytesPerSecond) {
        public Link {
            Objects.requireNonNull(latency, "latency");
            if (latency.isNegative() || bytesPerSecond <= 0) {
                throw new IllegalArgumentException("a link needs a latency >= 0 and a positive bandwidth");
            }
        }

        /** Time to push {@code bytes} onto this link, in nanoseconds. */
        public long transmissionNanos(long bytes) {
            return (long) (bytes * 1e9 / bytesPerSecond);
        }
    }

    private final List<String> sites;
    private final Map<String, Link> links;
    private final Link intraSite;

    private WanTopology(List<String> sites, Map<String, Link> links, Link intraSite) {
        this.sites = List.copyOf(sites);
        this.links = Map.copyOf(links);
        this.intraSite = intraSite;
    }

    /**
     * The paper's figure 7: ping round-trip times (halved for one-way latency) and TCP bandwidths
     * between Mountain View, Redmond, Beijing and Cambridge; inside a site, 1 ms one way (2 ms
     * ping) and 10 MB/s, as in the paper's local copy experiment.
     */
    public static WanTopology paperFigure7() {
        return builder()
                .site(MOUNTAIN_VIEW).site(REDMOND).site(BEIJING).site(CAMBRIDGE)
                .rtt(MOUNTAIN_VIEW, REDMOND, 32, 6.3)
                .rtt(MOUNTAIN_VIEW, BEIJING, 180, 2.1)
                .rtt(MOUNTAIN_VIEW, CAMBRIDGE, 240, 1.4)
                .rtt(REDMOND, BEIJING, 146, 8.5)
                .rtt(REDMOND, CAMBRIDGE, 210, 8.6)
                .rtt(BEIJING, CAMBRIDGE, 354, 2.4)
                .intraSite(Duration.ofMillis(1), 10_000_000)
                .build();
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this topology's sites and links, to extend it. */
    public Builder toBuilder() {
        Builder b = new Builder();
        sites.forEach(b::site);
        b.links.putAll(links);
        b.intraSite = intraSite;
        return b;
    }

    /** The sites. */
    public List<String> sites() {
        return sites;
    }

    /** The link from site {@code from} to site {@code to} (the intra-site link if they are the same). */
    public Link link(String from, String to) {
        if (from.equals(to)) {
            if (!sites.contains(from)) {
                throw new IllegalArgumentException("unknown site '" + from + "' (sites: " + sites + ")");
            }
            return intraSite;
        }
        Link l = links.get(key(from, to));
        if (l == null) {
            throw new IllegalArgumentException("no link between '" + from + "' and '" + to + "' (sites: " + sites + ")");
        }
        return l;
    }

    /** The link inside a site. */
    public Link intraSite() {
        return intraSite;
    }

    private static String key(String a, String b) {
        return a.compareTo(b) < 0 ? a + "\u0000" + b : b + "\u0000" + a;
    }

    /** Builds a {@link WanTopology}. */
    public static final class Builder {
        private final List<String> sites = new ArrayList<>();
        private final Map<String, Link> links = new HashMap<>();
        private Link intraSite = new Link(Duration.ofMillis(1), 10_000_000);

        private Builder() {
        }

        /** Adds a site. */
        public Builder site(String name) {
            if (!sites.contains(name)) {
                sites.add(name);
            }
            return this;
        }

        /** Links {@code a} and {@code b} with a one-way latency and a bandwidth in bytes per second. */
        public Builder link(String a, String b, Duration oneWayLatency, long bytesPerSecond) {
            site(a).site(b);
            links.put(key(a, b), new Link(oneWayLatency, bytesPerSecond));
            return this;
        }

        /** Links {@code a} and {@code b} from a ping round-trip time in ms and a bandwidth in MB/s. */
        public Builder rtt(String a, String b, double rttMillis, double megabytesPerSecond) {
            return link(a, b, Duration.ofNanos((long) (rttMillis * 1e6 / 2)), (long) (megabytesPerSecond * 1_000_000));
        }

        /** The link inside every site. */
        public Builder intraSite(Duration oneWayLatency, long bytesPerSecond) {
            this.intraSite = new Link(oneWayLatency, bytesPerSecond);
            return this;
        }

        /** The topology; every pair of distinct sites must be linked. */
        public WanTopology build() {
            for (String a : sites) {
                for (String b : sites) {
                    if (!a.equals(b) && !links.containsKey(key(a, b))) {
                        throw new IllegalStateException("sites '" + a + "' and '" + b + "' are not linked");
                    }
                }
            }
            return new WanTopology(sites, links, intraSite);
        }
    }
}
