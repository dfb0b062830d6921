package io.rpcc.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Metadata: immutable, text and byte values, valid keys, bounded in entries and bytes. */
class MetadataTest {

    @Test
    void holdsTextAndBytesAndIsImmutable() {
        byte[] trace = {1, 2, 3};
        Metadata empty = Metadata.empty();
        Metadata m = empty.with("tenant", "acme").with("trace-bin", trace);
        trace[0] = 9; // the metadata keeps its own copy
        assertTrue(empty.isEmpty());
        assertEquals("acme", m.get("tenant"));
        assertArrayEquals(new byte[] {1, 2, 3}, m.getBytes("trace-bin"));
        m.getBytes("trace-bin")[1] = 9; // and hands out copies
        assertArrayEquals(new byte[] {1, 2, 3}, m.getBytes("trace-bin"));
        assertTrue(m.isBytes("trace-bin"));
        assertFalse(m.isBytes("tenant"));
        assertNull(m.get("missing"));
        assertEquals(List.of("tenant", "trace-bin"), List.copyOf(m.keys()));
        assertEquals("tenant".length() + "acme".length() + "trace-bin".length() + 3, m.byteSize());
        assertThrows(IllegalStateException.class, () -> m.get("trace-bin"));
        assertThrows(IllegalStateException.class, () -> m.getBytes("tenant"));
    }

    @Test
    void replacingAndRemovingKeepTheByteCount() {
        Metadata m = Metadata.empty().with("a", "12345").with("a", "1").with("b", "xy");
        assertEquals(2, m.size());
        assertEquals("1", m.get("a"));
        assertEquals(2 + 3, m.byteSize());
        Metadata less = m.without("a");
        assertEquals(3, less.byteSize());
        assertSame(Metadata.empty(), less.without("b"));
        assertEquals(m, Metadata.empty().with("b", "xy").with("a", "1"), "equality ignores order");
        assertNotEquals(m, Metadata.empty().with("a", "1").with("b", "xy".getBytes()), "text is not bytes");
        assertEquals(Metadata.empty().with("k", new byte[] {7}), Metadata.empty().with("k", new byte[] {7}));
        assertEquals(Metadata.empty().with("k", new byte[] {7}).hashCode(), Metadata.empty().with("k", new byte[] {7}).hashCode());
    }

    @Test
    void keysAreLowerCaseTokens() {
        for (String bad : new String[] {"", "Tenant", "a b", "ä", "x".repeat(Metadata.MAX_KEY_LENGTH + 1), "k:v"}) {
            assertThrows(IllegalArgumentException.class, () -> Metadata.empty().with(bad, "v"), bad);
        }
        Metadata.empty().with("a-z_0.9", "v").with("x".repeat(Metadata.MAX_KEY_LENGTH), "v");
    }

    @Test
    void tooManyEntriesOrBytesAreATypedErrorSayingTheLimits() {
        Metadata full = Metadata.empty();
        for (int i = 0; i < Metadata.MAX_ENTRIES; i++) {
            full = full.with("k" + i, "v");
        }
        Metadata fullCount = full;
        MetadataTooLargeException tooMany = assertThrows(MetadataTooLargeException.class, () -> fullCount.with("one-more", "v"));
        assertTrue(tooMany.getMessage().contains("at most " + Metadata.MAX_ENTRIES + " entries"), tooMany.getMessage());
        assertEquals("w", fullCount.with("k0", "w").get("k0"), "replacing a key adds no entry");

        String big = "x".repeat(Metadata.MAX_BYTES - 1);
        Metadata almost = Metadata.empty().with("k", big);
        assertEquals(Metadata.MAX_BYTES, almost.byteSize());
        MetadataTooLargeException tooBig = assertThrows(MetadataTooLargeException.class, () -> almost.with("j", ""));
        assertTrue(tooBig.getMessage().contains(Metadata.MAX_BYTES + " bytes"), tooBig.getMessage());
        // UTF-8 bytes, not chars, count
        assertThrows(MetadataTooLargeException.class,
                () -> Metadata.empty().with("k", "é".repeat(Metadata.MAX_BYTES / 2)));
        assertThrows(MetadataTooLargeException.class,
                () -> Metadata.empty().with("k", new byte[Metadata.MAX_BYTES]));
    }

    @Test
    void toStringShowsNoValues() {
        String s = Metadata.empty().with("authorization", "secret-token").with("bin", new byte[] {1, 2}).toString();
        assertFalse(s.contains("secret-token"), s);
        assertEquals("Metadata[authorization=<12 chars>, bin=<2 bytes>]", s);
    }
}
