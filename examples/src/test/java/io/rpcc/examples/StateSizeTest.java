package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rpcc.examples.statesize.StateSize;
import io.rpcc.testkit.WanTopology;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Figure 10's crossover from the topology, and the runner end to end. */
class StateSizeTest {
    @Test
    void crossoverIsTheSavedLatencyTimesTheBandwidth() {
        WanTopology t = WanTopology.paperFigure7();
        // RPC: 2 x (16 + 16) ms; chain: 16 + 1 + 16 ms: 31 ms saved, at 6.3 MB/s = 195,300 bytes
        assertEquals(31 * 6300.0 / 1024, StateSize.idealCrossoverKb(t), 0.01);
    }

    @Test
    void runsBothVariants() throws Exception {
        Results results = StateSize.run(WanTopology.paperFigure7(), List.of(0, 20), 1, Duration.ZERO);
        assertEquals(List.of("chain", "rpc", "ideal chain", "ideal rpc", "chain", "rpc", "ideal chain", "ideal rpc"),
                results.lines().stream().map(Measurement::label).toList());
    }

    @Test
    void measuredCrossoverInterpolatesBetweenSizes() {
        List<Measurement> lines = List.of(
                Measurement.measured("state-size", "chain", 100, 60, 2), Measurement.measured("state-size", "rpc", 100, 70, 2),
                Measurement.measured("state-size", "chain", 200, 80, 2), Measurement.measured("state-size", "rpc", 200, 70, 2));
        assertEquals(150, StateSize.measuredCrossoverKb(lines), 1e-9);
    }
}
