package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.copy.CopyUnderLoad;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The figure-12 runner end to end, at a small load. */
class CopyUnderLoadTest {
    @Test
    void measuresBothVariantsAtEachLoad() throws Exception {
        List<Measurement> lines = CopyUnderLoad.run(List.of(1, 2), 1, Duration.ZERO).lines();
        assertEquals(List.of("chain", "ideal chain", "rpc", "ideal rpc", "chain", "ideal chain", "rpc", "ideal rpc"),
                lines.stream().map(Measurement::label).toList());
        assertEquals(List.of(1, 1, 1, 1, 2, 2, 2, 2), lines.stream().map(Measurement::param).toList());
        assertTrue(lines.stream().allMatch(m -> m.throughputMbS() > 0 && m.medianMs() > 0));
        for (Measurement m : lines) {
            if (!m.isIdeal()) {
                double ideal = lines.stream().filter(i -> i.isIdeal() && i.idealFor().equals(m.variant())
                        && i.param() == m.param()).findFirst().orElseThrow().medianMs();
                // one client: never faster than its links; several: the model moves whole blocks while
                // the emulator interleaves the clients' slices, so it is a bound only to within a few %
                double bound = m.param() == 1 ? ideal : 0.9 * ideal;
                assertTrue(m.medianMs() >= bound, m + " is faster than the links allow (" + ideal + " ms)");
            }
        }
    }
}
