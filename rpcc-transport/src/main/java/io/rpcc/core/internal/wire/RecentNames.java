package io.rpcc.core.internal.wire;

import java.util.function.IntUnaryOperator;

/**
 * The short strings a decoding thread read lately, to hand out again instead of a new string each
 * time the same one is read: a chain's header repeats the same few names (nodes, hosts, service
 * functions) in its path and timings at every hop, a static route's state carries its servers and
 * functions at every hop, and a hop that only forwards would otherwise allocate a string for each of
 * them. Every string a frame's input reads (rpcc's fields and Kryo's user values alike) goes through
 * it; strings are immutable, so a string handed out twice is the same value either way (only its
 * identity is shared, as with interned literals).
 *
 * <p>A string is looked up by its bytes as Kryo wrote them (an ASCII string of 2 to
 * {@link #MAX_CHARS} characters, its last byte flagged), so a hit is exactly the string a decode
 * would give; anything else (longer, non-ASCII, null, empty, one character) is read as usual. The
 * table is per thread (the event loops decode frames), fixed in size, a newer string taking the slot
 * of an older one: it never grows, whatever a peer sends.
 */
final class RecentNames {
    /** The longest name kept. */
    static final int MAX_CHARS = 64;
    /** Slots in each thread's table (a power of two). */
    private static final int SLOTS = 256;
    private static final ThreadLocal<String[]> TABLES = ThreadLocal.withInitial(() -> new String[SLOTS]);

    private RecentNames() {
    }

    /**
     * The name at {@code position} (bytes up to {@code limit} read by {@code at}) if this thread read
     * it lately, {@code position} then to be moved past its length in bytes (one a character);
     * else {@code null}.
     */
    static String lookUp(int position, int limit, IntUnaryOperator at) {
        int end = end(position, limit, at);
        if (end < 0) {
            return null;
        }
        int chars = end - position + 1;
        String kept = TABLES.get()[slot(position, end, at)];
        if (kept == null || kept.length() != chars) {
            return null;
        }
        for (int i = 0; i < chars - 1; i++) {
            if (kept.charAt(i) != at.applyAsInt(position + i)) {
                return null;
            }
        }
        return kept.charAt(chars - 1) == (at.applyAsInt(end) & 0x7F) ? kept : null;
    }

    /** Keeps {@code name}, just read from {@code position} (up to {@code limit}, read by {@code at}). */
    static void keep(String name, int position, int limit, IntUnaryOperator at) {
        int end = end(position, limit, at);
        if (end >= 0 && name != null && name.length() == end - position + 1) {
            TABLES.get()[slot(position, end, at)] = name;
        }
    }

    /**
     * The index of the last byte of a Kryo ASCII string of 2 to {@link #MAX_CHARS} characters at
     * {@code position} (its first byte unflagged, its last flagged), or -1 if there is none.
     */
    private static int end(int position, int limit, IntUnaryOperator at) {
        if (position >= limit || (at.applyAsInt(position) & 0x80) != 0) {
            return -1; // null, empty, one character or UTF-8: Kryo's length-prefixed form
        }
        int last = Math.min(limit, position + MAX_CHARS);
        for (int p = position + 1; p < last; p++) {
            if ((at.applyAsInt(p) & 0x80) != 0) {
                return p;
            }
        }
        return -1;
    }

    private static int slot(int position, int end, IntUnaryOperator at) {
        int h = 0;
        for (int p = position; p < end; p++) {
            h = 31 * h + at.applyAsInt(p);
        }
        h = 31 * h + (at.applyAsInt(end) & 0x7F);
        return (h ^ (h >>> 8) ^ (h >>> 16)) & (SLOTS - 1);
    }
}
