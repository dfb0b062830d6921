package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.copy.Copy;
import io.rpcc.examples.copy.ReplicatedCopy;
import io.rpcc.examples.copy.ReplicatedCopy.Placement;
import io.rpcc.testkit.WanTopology;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Figure 13's replicated copy: the three variants copy the file to the primary and its backup over
 * the emulated WAN, in the paper's placement and with the backup near the client; composition
 * keeps the backup's results off the primary; the ideals follow each variant's links.
 */
class ReplicatedCopyTest {
    private static final double BLOCK = Copy.BLOCK;

    @Test
    void theDefaultPlacementIsThePapers() {
        Placement p = Placement.named("paper");
        assertEquals(Placement.PAPER, p);
        assertEquals(List.of(WanTopology.CAMBRIDGE, Copy.MOUNTAIN_VIEW_LAN, WanTopology.MOUNTAIN_VIEW, WanTopology.REDMOND),
                List.of(p.client(), p.source(), p.primary(), p.backup()));
        Options.UsageException unknown = assertThrows(Options.UsageException.class, () -> Placement.named("moon"));
        assertTrue(unknown.getMessage().contains("paper, backup-near-client"), unknown.getMessage());
        Options.UsageException shared = assertThrows(Options.UsageException.class,
                () -> Placement.PAPER.withBackup(WanTopology.MOUNTAIN_VIEW));
        assertTrue(shared.getMessage().contains("site of its own"), shared.getMessage());
    }

    @Test
    void idealsFollowEachVariantsLinksInThePapersPlacement() {
        WanTopology t = ReplicatedCopy.topology();
        Placement p = Placement.PAPER;
        // one block: Cambridge → Mountain View 120 ms; the source's subnet → the primary's 1 ms + 3.3 ms at
        // 10 MB/s; → backup in Redmond 16 ms + 5.2 ms at 6.3 MB/s; composed, the result then goes to
        // Cambridge straight from Redmond (105 ms)
        double toBackup = 120 + 1 + BLOCK / 10_000.0 + 16 + BLOCK / 6_300.0;
        assertEquals(toBackup + 105, ReplicatedCopy.idealMs(t, p, "composed", Copy.BLOCK), 0.01);
        // returned, it goes back to Mountain View (16 ms) and from there to the client (120 ms): 31 ms more
        assertEquals(toBackup + 16 + 120, ReplicatedCopy.idealMs(t, p, "returned", Copy.BLOCK), 0.01);
        // rpc: the block comes down to the client (1.4 MB/s) and goes back up to Mountain View before the
        // same replication
        assertEquals(120 + 120 + BLOCK / 1_400.0 + 120 + BLOCK / 1_400.0 + 16 + BLOCK / 6_300.0 + 16 + 120,
                ReplicatedCopy.idealMs(t, p, "rpc", Copy.BLOCK), 0.01);
    }

    @Test
    void idealsFollowEachVariantsLinksWithTheBackupNearTheClient() {
        WanTopology t = ReplicatedCopy.topology();
        Placement p = Placement.BACKUP_NEAR_CLIENT;
        // one block: Cambridge → Mountain View 120 ms; → Redmond 16 ms + 5.2 ms at 6.3 MB/s; → backup in
        // Cambridge 105 ms + 3.8 ms at 8.6 MB/s; composed, the result then crosses Cambridge's LAN (1 ms)
        double toBackup = 120 + 16 + BLOCK / 6_300.0 + 105 + BLOCK / 8_600.0;
        assertEquals(toBackup + 1, ReplicatedCopy.idealMs(t, p, "composed", Copy.BLOCK), 0.01);
        // returned, it goes back to Redmond and from there to the client: two more transatlantic crossings
        assertEquals(toBackup + 105 + 105, ReplicatedCopy.idealMs(t, p, "returned", Copy.BLOCK), 0.01);
        // rpc: the block comes down to the client (1.4 MB/s) and goes up to Redmond before the same replication
        assertEquals(120 + 120 + BLOCK / 1_400.0 + 105 + BLOCK / 8_600.0 + 105 + BLOCK / 8_600.0 + 105 + 105,
                ReplicatedCopy.idealMs(t, p, "rpc", Copy.BLOCK), 0.01);
    }

    @Test
    void inThePapersPlacementEveryVariantReplicatesTheFileAlongItsPath() throws Exception {
        Map<String, Map<String, Long>> links = new HashMap<>();
        // the runner checks the primary's and the backup's copies against the original, byte for byte
        Results results = ReplicatedCopy.run(Placement.PAPER, List.of(64), 1, Duration.ZERO,
                (variant, kb, bytes) -> links.put(variant, bytes));
        assertEquals(List.of("composed", "returned", "rpc", "ideal composed", "ideal returned", "ideal rpc"),
                results.lines().stream().map(Measurement::label).toList());
        long file = 64 * 1024;
        String lan = Copy.MOUNTAIN_VIEW_LAN;
        String mv = WanTopology.MOUNTAIN_VIEW;
        String redmond = WanTopology.REDMOND;
        String cambridge = WanTopology.CAMBRIDGE;
        for (String chain : List.of("composed", "returned")) {
            Map<String, Long> l = links.get(chain);
            // the blocks go from the source's subnet to the primary's, then to the backup in Redmond ...
            assertTrue(bytes(l, lan, mv) >= file && bytes(l, mv, redmond) >= file, chain + ": " + l);
            // ... and never through the client in Cambridge: only requests and results cross its links
            assertTrue(bytes(l, cambridge, lan) + bytes(l, lan, cambridge) + bytes(l, cambridge, mv) + bytes(l, mv, cambridge)
                    + bytes(l, cambridge, redmond) + bytes(l, redmond, cambridge) < file / 8, chain + ": " + l);
        }
        Map<String, Long> composed = links.get("composed");
        Map<String, Long> returned = links.get("returned");
        // composed, the backup's results go straight to the client; nothing comes back to the primary
        assertTrue(bytes(composed, redmond, cambridge) > 0, "composed: " + composed);
        assertTrue(bytes(composed, redmond, mv) < 100 && bytes(composed, mv, cambridge) < 100, "composed: " + composed);
        // returned, they go back to the primary, which sends the chain's result to the client
        assertTrue(bytes(returned, redmond, mv) > 2 * 100 && bytes(returned, mv, cambridge) > 2 * 100, "returned: " + returned);
        assertTrue(bytes(returned, redmond, cambridge) < 100, "returned: " + returned);
        // rpc: the blocks go down to the client and back up to the primary
        Map<String, Long> rpc = links.get("rpc");
        assertTrue(bytes(rpc, lan, cambridge) >= file && bytes(rpc, cambridge, mv) >= file && bytes(rpc, lan, mv) < 100,
                "rpc: " + rpc);
        Measurement composedLine = results.measured("composed", 64, null);
        Measurement returnedLine = results.measured("returned", 64, null);
        assertTrue(composedLine.bytesViaPrimary() >= 2 * file, "the blocks go in and out of the primary either way");
        assertTrue(composedLine.bytesViaPrimary() < returnedLine.bytesViaPrimary() - 2 * 100,
                "composed " + composedLine.bytesViaPrimary() + " bytes via the primary, returned "
                        + returnedLine.bytesViaPrimary());
    }

    /** The bytes the link from {@code from} to {@code to} carried (0 if unused). */
    private static long bytes(Map<String, Long> links, String from, String to) {
        return links.getOrDefault(from + " → " + to, 0L);
    }

    @Test
    void withTheBackupNearTheClientCompositionKeepsResultsOffThePrimary() throws Exception {
        Results results = ReplicatedCopy.run(Placement.BACKUP_NEAR_CLIENT, List.of(64), 1, Duration.ZERO,
                (variant, kb, bytes) -> { });
        Measurement composed = results.measured("composed", 64, null);
        Measurement returned = results.measured("returned", 64, null);
        assertTrue(composed.bytesViaPrimary() >= 2 * 64 * 1024, "the blocks go in and out of the primary either way");
        // composed, no result of the backup goes through the primary: 2 blocks, each one return fewer in and out
        assertTrue(composed.bytesViaPrimary() < returned.bytesViaPrimary() - 2 * 100,
                "composed " + composed.bytesViaPrimary() + " bytes via the primary, returned " + returned.bytesViaPrimary());
        assertTrue(composed.json().contains("\"bytes_via_primary\":" + composed.bytesViaPrimary()), composed.json());
    }
}
