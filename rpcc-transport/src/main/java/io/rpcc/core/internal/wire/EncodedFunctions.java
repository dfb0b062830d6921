package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.io.Output;

/**
 * The chaining-function texts encoded lately, as Kryo writes them, to write again as bytes: every
 * hop of a chain carries its chaining function's text (a static route's is some 700 characters),
 * and Kryo writes a string a character at a time. A text is found by its hash and then compared
 * (by identity first: a text decoded at a node is handed out again by {@link RecentFunctions}, so
 * a forwarding hop writes the very string it read), so a hit writes exactly the bytes
 * {@link Output#writeString} would.
 *
 * <p>One table for the node's process, shared by every thread that encodes (hops run on virtual
 * threads: a table per thread would be made and lost with each hop), fixed in size, a newer text
 * taking the slot of an older one; a slot holds an immutable entry, so a thread that reads a slot
 * another thread is writing sees the old entry, the new one or none, each whole. Texts of fewer
 * than {@link #MIN_CHARS} characters or more than {@link RecentFunctions#MAX_BYTES} encoded bytes
 * are written as usual.
 */
final class EncodedFunctions {
    /** The shortest text kept (shorter ones cost little to write). */
    static final int MIN_CHARS = 64;
    /** Slots in the table (a power of two). */
    private static final int SLOTS = 16;
    private static final Kept[] TABLE = new Kept[SLOTS];

    /** A text and its bytes as Kryo encodes it (length prefix and characters). */
    private record Kept(String text, byte[] encoded) {
    }

    private EncodedFunctions() {
    }

    /** Writes {@code text} to {@code out} as {@link Output#writeString} does. */
    static void write(Output out, String text) {
        if (text == null || text.length() < MIN_CHARS || text.length() > RecentFunctions.MAX_BYTES) {
            out.writeString(text);
            return;
        }
        int slot = slot(text);
        Kept kept = TABLE[slot];
        if (kept == null || kept.text() != text && !kept.text().equals(text)) {
            Output encoder = new Output(text.length() + 8, -1);
            encoder.writeString(text);
            if (encoder.position() > RecentFunctions.MAX_BYTES) {
                out.writeBytes(encoder.getBuffer(), 0, encoder.position()); // too long to keep; not encoded again
                return;
            }
            kept = new Kept(text, encoder.toBytes());
            TABLE[slot] = kept;
        }
        out.writeBytes(kept.encoded());
    }

    private static int slot(String text) {
        int h = text.hashCode();
        return (h ^ (h >>> 16)) & (SLOTS - 1);
    }
}
