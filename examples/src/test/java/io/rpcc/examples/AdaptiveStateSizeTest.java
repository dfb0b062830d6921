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
        assertEquals(1.0, sweep.carried().get(1)); // 1 KB: carried
        assertTrue(sweep.carried().containsKey(300));
    }
}
