package io.rpcc.core.internal.wire;

/**
 * The rpcc protocol versions a node speaks, as its HELLO announces them: two nodes talk in the
 * highest version both speak, or not at all.
 *
 * @param min the oldest version spoken
 * @param max the newest version spoken
 */
public record VersionRange(int min, int max) {
    /** The versions this build speaks. */
    public static final VersionRange SUPPORTED = new VersionRange(FrameType.PROTOCOL_VERSION, FrameType.PROTOCOL_VERSION);

    /** The highest version both this range and {@code other} contain, or -1 if there is none. */
    public int agree(VersionRange other) {
        int v = Math.min(max, other.max);
        return other.min <= other.max && v >= Math.max(min, other.min) ? v : -1;
    }

    /**
     * Why node {@code self}, which speaks this range, cannot talk to {@code peer}, which speaks
     * {@code peerRange}, and which node to upgrade.
     */
    public String mismatch(String self, String peer, VersionRange peerRange) {
        String upgrade = peerRange.max < min ? "'" + peer + "' to an rpcc build that speaks " + describe()
                : "'" + self + "' to an rpcc build that speaks " + peerRange.describe();
        return "'" + peer + "' speaks rpcc protocol " + peerRange.describe() + " and '" + self + "' speaks "
                + describe() + ": no version in common; upgrade " + upgrade;
    }

    /** {@code version 3}, or {@code versions 3 to 5}. */
    public String describe() {
        return min == max ? "version " + min : "versions " + min + " to " + max;
    }
}
