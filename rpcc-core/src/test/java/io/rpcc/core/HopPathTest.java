package io.rpcc.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A chain's path stays bounded and still counts every server it stands for. */
class HopPathTest {
    private static List<String> names(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            out.add("n" + i);
        }
        return out;
    }

    @Test
    void anElisionSaysHowManyHopsItStandsFor() {
        assertEquals("… 12 hops …", HopPath.elision(12));
        assertEquals(12, HopPath.elided("… 12 hops …"));
        assertTrue(HopPath.isElision("… 12 hops …"));
        assertFalse(HopPath.isElision("s1"));
        assertFalse(HopPath.isElision("… x hops …"));
        assertFalse(HopPath.isElision("… 0 hops …"));
        assertFalse(HopPath.isElision("… 99999999999999999999999 hops …"), "too many digits for a count");
        assertThrows(IllegalArgumentException.class, () -> HopPath.elision(0));
    }

    @Test
    void aPathGrowsUntilItsBoundThenKeepsItsFirstAndLastNames() {
        List<String> path = List.of();
        for (int i = 1; i <= HopPath.MAX_ENTRIES; i++) {
            path = HopPath.through(path, "n" + i);
        }
        assertEquals(names(1, HopPath.MAX_ENTRIES), path, "up to the bound, every name");
        for (int i = HopPath.MAX_ENTRIES + 1; i <= 500; i++) {
            path = HopPath.through(path, "n" + i);
            assertEquals(HopPath.MAX_ENTRIES, path.size());
            assertEquals(i, HopPath.visited(path));
        }
        assertEquals(names(1, 16), path.subList(0, 16));
        assertEquals(HopPath.elision(500 - 32), path.get(16));
        assertEquals(names(485, 500), path.subList(17, 33));
    }

    @Test
    void boundingAddsTheElisionsItLeavesOutToItsCount() {
        List<String> path = new ArrayList<>(names(1, 16));
        path.add(HopPath.elision(100));
        path.addAll(names(117, 140)); // 24 names after the elision: 41 entries, 140 servers
        List<String> bounded = HopPath.bounded(path);
        assertEquals(HopPath.MAX_ENTRIES, bounded.size());
        assertEquals(140, HopPath.visited(bounded));
        assertEquals(HopPath.elision(108), bounded.get(16));
        assertEquals(names(125, 140), bounded.subList(17, 33));
    }

    @Test
    void whatAPathGainedSinceAPointCutsAnElisionItStraddles() {
        assertEquals(List.of("b", "c"), HopPath.after(List.of("a", "b", "c"), 1));
        assertEquals(List.of(), HopPath.after(List.of("a", "b", "c"), 3));
        List<String> path = new ArrayList<>(names(1, 16));
        path.add(HopPath.elision(10));
        path.addAll(names(27, 42));
        List<String> gained = HopPath.after(path, 20); // 22 servers: 6 of the elided ones, then 16 names
        assertEquals(HopPath.elision(6), gained.getFirst());
        assertEquals(names(27, 42), gained.subList(1, gained.size()));
        assertEquals(22, HopPath.visited(gained));
    }
}
