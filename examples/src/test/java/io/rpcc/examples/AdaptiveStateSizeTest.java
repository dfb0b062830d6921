package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.statesize.AdaptiveStateSize;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Figure 10 with the adaptive state fall-back: the crossovers from the topology, and the runner end to end. */
class AdaptiveStateSizeTest {
    @Test
    void serversApartMoveTheCrossoverDown() {
        // same site: 31 ms saved at 6.3 MB/s; 15 ms apart: RPC 2 x 32 ms, chain 16 + 15 + 16 ms, 17 ms saved
        assertEquals(31 * 6300.0 / 1024, AdaptiveStateSize.idealCrossoverKb(AdaptiveStateSize.topology(0)), 0.01);
        assertEquals(17 * 6300.0 / 1024, AdaptiveStateSize.idealCrossoverKb(AdaptiveStateSize.topology(15)), 0.01);
    }

    @Test
    void runsTheThreeVariants() throws Exception {
        AdaptiveStateSize.Sweep sweep = AdaptiveStateSize.run(AdaptiveStateSize.topology(0), List.of(1, 300), 1,
                Duration.ZERO, "same site");
        assertEquals(List.of("chain", "rpc", "adaptive", "ideal chain", "ideal rpc"),
                sweep.results().lines().stream().limit(5).map(Measurement::label).toList());
        assertEquals(10, sweep.results().lines().size());
        assertEquals(1.0, sweep.cells().get(1).carriedShare()); // 1 KB: carried
        assertTrue(sweep.cells().containsKey(300));
        assertEquals(1, sweep.cells().get(300).adaptive().size());
        // a size measured again has its own runs (timings are not asserted: which sizes miss is the machine's)
        sweep.reruns().values().forEach(c -> assertEquals(1, c.chain().size()));
    }

    @Test
    void aCellReportsItsMediansSpreadAndDistanceFromTheLowerLine() {
        AdaptiveStateSize.Cell cell = new AdaptiveStateSize.Cell(List.of(40.0, 38.0, 39.0, 50.0, 41.0),
                List.of(70.0, 71.0, 69.0, 72.0, 90.0), List.of(42.0, 41.0, 40.0, 43.0, 39.0), 4, null);
        assertEquals(40.0, cell.median("chain"));
        assertEquals(71.0, cell.median("rpc"));
        assertEquals(1.0, cell.halfSpread("chain")); // (41 - 39) / 2
        assertEquals(1.0, cell.halfSpread("rpc")); // (72 - 70) / 2: the 90 ms outlier is outside the middle half
        assertEquals(100 * (41.0 / 40 - 1), cell.overMinPercent(), 1e-9);
        assertEquals(0.8, cell.carriedShare());
    }
}
