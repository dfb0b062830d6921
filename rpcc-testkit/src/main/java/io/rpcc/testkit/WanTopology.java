package io.rpcc.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Sites and the links between them: one-way latency and bandwidth for every ordered pair of sites,
 * plus a link used inside each site. {@link Builder#link} sets both directions of a pair alike;
 * {@link Builder#oneWay} sets one direction, so that a pair can be asymmetric (a slow uplink, a
 * route that differs each way). Inside a site, every site uses the default
 * {@link Builder#intraSite(Duration, long)} unless given one of its own
 * ({@link Builder#intraSite(String, Duration, long)}).
 *
 * <pre>{@code
 * WanTopology paper = WanTopology.paperFigure7();           // Mountain View, Redmond, Beijing, Cambridge
 * WanTopology mine = WanTopology.builder()
 *     .site("eu").site("us")
 *     .link("eu", "us", Duration.ofMillis(45), 5_000_000)   // one way, bytes per second
 *     .intraSite(Duration.ofMillis(1), 10_000_000)
 *     .build();
 * }</pre>
 *
 * <p>Cloud regions, say: availability zones a fraction of a millisecond apart inside a region,
 * regions tens of milliseconds apart, an edge site whose uplink is narrower than its downlink:
 *
 * <pre>{@code
 * WanTopology regions = WanTopology.builder()
 *     .intraSite(Duration.ofMillis(1), 10_000_000)                       // default inside a site
 *     .intraSite("eu-west", Duration.ofMicros(300), 100_000_000)         // one region's zones
 *     .intraSite("us-east", Duration.ofMicros(400), 100_000_000)
 *     .link("eu-west", "us-east", Duration.ofMillis(38), 20_000_000)    // both directions
 *     .oneWay("edge", "eu-west", Duration.ofMillis(12), 1_000_000)      // the edge's uplink
 *     .oneWay("eu-west", "edge", Duration.ofMillis(9), 8_000_000)       // and its downlink
 *     .link("edge", "us-east", Duration.ofMillis(50), 1_000_000)
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
    /** Links between distinct sites, by {@link #key(String, String)} (one direction each). */
    private final Map<String, Link> links;
    private final Link intraSite;
    /** Sites with a link inside them of their own. */
    private final Map<String, Link> intraSites;

    private WanTopology(List<String> sites, Map<String, Link> links, Link intraSite, Map<String, Link> intraSites) {
        this.sites = List.copyOf(sites);
        this.links = Map.copyOf(links);
        this.intraSite = intraSite;
        this.intraSites = Map.copyOf(intraSites);
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
        b.intraSites.putAll(intraSites);
        return b;
    }

    /** The sites. */
    public List<String> sites() {
        return sites;
    }

    /**
     * The link from site {@code from} to site {@code to}, in that direction (the link inside the
     * site if they are the same: {@link #intraSite(String)}).
     */
    public Link link(String from, String to) {
        if (from.equals(to)) {
            return intraSite(from);
        }
        Link l = links.get(key(from, to));
        if (l == null) {
            throw new IllegalArgumentException("no link from '" + from + "' to '" + to + "' (sites: " + sites + ")");
        }
        return l;
    }

    /** The default link inside a site: that of every site without one of its own. */
    public Link intraSite() {
        return intraSite;
    }

    /** The link inside {@code site}: its own if it was given one, else the default. */
    public Link intraSite(String site) {
        if (!sites.contains(site)) {
            throw new IllegalArgumentException("unknown site '" + site + "' (sites: " + sites + ")");
        }
        return intraSites.getOrDefault(site, intraSite);
    }

    /** The key of the direction from {@code from} to {@code to}. */
    private static String key(String from, String to) {
        return from + "\u0000" + to;
    }

    /** Builds a {@link WanTopology}. */
    public static final class Builder {
        private final List<String> sites = new ArrayList<>();
        private final Map<String, Link> links = new HashMap<>();
        private final Map<String, Link> intraSites = new HashMap<>();
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

        /**
         * Links {@code a} and {@code b}, both directions alike, with a one-way latency and a
         * bandwidth in bytes per second (replacing whatever either direction had).
         */
        public Builder link(String a, String b, Duration oneWayLatency, long bytesPerSecond) {
            return oneWay(a, b, oneWayLatency, bytesPerSecond).oneWay(b, a, oneWayLatency, bytesPerSecond);
        }

        /**
         * Links {@code from} to {@code to} in that direction only, with a one-way latency and a
         * bandwidth in bytes per second (replacing what that direction had): give the other
         * direction its own, or both with {@link #link} first and then override one.
         */
        public Builder oneWay(String from, String to, Duration latency, long bytesPerSecond) {
            if (from.equals(to)) {
                throw new IllegalArgumentException("a link joins two sites; inside '" + from + "' use intraSite");
            }
            site(from).site(to);
            links.put(key(from, to), new Link(latency, bytesPerSecond));
            return this;
        }

        /** Links {@code a} and {@code b} from a ping round-trip time in ms and a bandwidth in MB/s. */
        public Builder rtt(String a, String b, double rttMillis, double megabytesPerSecond) {
            return link(a, b, Duration.ofNanos((long) (rttMillis * 1e6 / 2)), (long) (megabytesPerSecond * 1_000_000));
        }

        /** The link inside every site that has none of its own (default 1 ms, 10 MB/s). */
        public Builder intraSite(Duration oneWayLatency, long bytesPerSecond) {
            this.intraSite = new Link(oneWayLatency, bytesPerSecond);
            return this;
        }

        /**
         * The link inside {@code site} (added if new), overriding the default
         * {@link #intraSite(Duration, long)} for it: for instance a region whose zones are closer
         * together than another's.
         */
        public Builder intraSite(String site, Duration oneWayLatency, long bytesPerSecond) {
            site(site);
            intraSites.put(site, new Link(oneWayLatency, bytesPerSecond));
            return this;
        }

        /** The topology; every ordered pair of distinct sites must be linked (each direction). */
        public WanTopology build() {
            for (String a : sites) {
                for (String b : sites) {
                    if (!a.equals(b) && !links.containsKey(key(a, b))) {
                        throw new IllegalStateException("no link from '" + a + "' to '" + b + "'"
                                + (links.containsKey(key(b, a)) ? " (only the other way)" : ""));
                    }
                }
            }
            return new WanTopology(sites, links, intraSite, intraSites);
        }
    }
}
