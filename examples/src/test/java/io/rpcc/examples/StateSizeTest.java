package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rpcc.examples.statesize.StateSize;
import io.rpcc.testkit.WanTopology;
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
        List<StateSize.Row> rows = StateSize.run(WanTopology.paperFigure7(), List.of(0, 20), 1);
        assertEquals(8, rows.size());
        assertEquals(List.of("chain", "rpc", "ideal", "ideal-rpc"), rows.subList(0, 4).stream().map(StateSize.Row::variant).toList());
    }

    @Test
    void measuredCrossoverInterpolatesBetweenSizes() {
        List<StateSize.Row> rows = List.of(
                new StateSize.Row("chain", 100, 60), new StateSize.Row("rpc", 100, 70),
                new StateSize.Row("chain", 200, 80), new StateSize.Row("rpc", 200, 70));
        assertEquals(150, StateSize.measuredCrossoverKb(rows), 1e-9);
    }
}
