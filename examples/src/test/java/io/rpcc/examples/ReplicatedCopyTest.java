package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.copy.Copy;
import io.rpcc.examples.copy.ReplicatedCopy;
import io.rpcc.testkit.WanTopology;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Figure 13's replicated copy: the three variants copy the file to the primary and its backup over
 * the emulated WAN; composition keeps the backup's results off the primary; the ideals follow each
 * variant's links.
 */
class ReplicatedCopyTest {
    @Test
    void idealsFollowEachVariantsLinks() {
        WanTopology t = WanTopology.paperFigure7();
        double block = Copy.BLOCK;
        // one block: Cambridge → Mountain View 120 ms; → Redmond 16 ms + 5.2 ms at 6.3 MB/s; → backup in
        // Cambridge 105 ms + 3.8 ms at 8.6 MB/s; composed, the result then crosses Cambridge's LAN (1 ms)
        double toBackup = 120 + 16 + block / 6_300.0 + 105 + block / 8_600.0;
        assertEquals(toBackup + 1, ReplicatedCopy.idealMs(t, WanTopology.CAMBRIDGE, "composed", Copy.BLOCK), 0.01);
        // returned, it goes back to Redmond and from there to the client: two more transatlantic crossings
        assertEquals(toBackup + 105 + 105, ReplicatedCopy.idealMs(t, WanTopology.CAMBRIDGE, "returned", Copy.BLOCK), 0.01);
        // rpc: the block comes down to the client (1.4 MB/s) and goes up to Redmond before the same replication
        assertEquals(120 + 120 + block / 1_400.0 + 105 + block / 8_600.0 + 105 + block / 8_600.0 + 105 + 105,
                ReplicatedCopy.idealMs(t, WanTopology.CAMBRIDGE, "rpc", Copy.BLOCK), 0.01);
    }

    @Test
    void everyVariantReplicatesTheFileAndCompositionKeepsResultsOffThePrimary() throws Exception {
        // the runner checks the primary's and the backup's copies against the original, byte for byte
        Results results = ReplicatedCopy.run(WanTopology.CAMBRIDGE, List.of(64), 1, Duration.ZERO);
        assertEquals(List.of("composed", "returned", "rpc", "ideal composed", "ideal returned", "ideal rpc"),
                results.lines().stream().map(Measurement::label).toList());
        Measurement composed = results.measured("composed", 64, null);
        Measurement returned = results.measured("returned", 64, null);
        assertTrue(composed.bytesViaPrimary() >= 2 * 64 * 1024, "the blocks go in and out of the primary either way");
        // composed, no result of the backup goes through the primary: 2 blocks, each one return fewer in and out
        assertTrue(composed.bytesViaPrimary() < returned.bytesViaPrimary() - 2 * 100,
                "composed " + composed.bytesViaPrimary() + " bytes via the primary, returned " + returned.bytesViaPrimary());
        assertTrue(composed.json().contains("\"bytes_via_primary\":" + composed.bytesViaPrimary()), composed.json());
    }
}
