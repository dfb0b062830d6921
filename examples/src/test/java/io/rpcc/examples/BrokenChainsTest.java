package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.broken.BrokenChains;
import io.rpcc.testkit.WanTopology;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The broken-chain runner end to end: a node killed mid-chain is detected no sooner than its last
 * heartbeat allows and not much later than the broken-after time, and the retried chain returns the
 * right result (the runner itself fails on a wrong result or a wrong exception).
 */
class BrokenChainsTest {
    @Test
    void aKilledNodeIsDetectedWithinTheHeartbeatBoundsAndTheRetryRecovers() throws Exception {
        WanTopology t = WanTopology.paperFigure7();
        Results results = BrokenChains.run(t, List.of(1000), 1, 300);
        double detect = results.measured("detect", 1000, null).medianMs();
        assertTrue(detect >= 1000 - 50, "detected " + detect + " ms after the kill, before broken-after less an interval");
        assertTrue(detect <= 2305 + 2000, "detected only " + detect + " ms after the kill (2 s after the bound, for a"
                + " loaded machine)");
        double recovery = results.measured("retry after detection", 1000, null).medianMs();
        assertTrue(recovery > 100, "the retried chain's result came " + recovery + " ms after the detection, within"
                + " its 100 ms backoff");
        assertEquals(List.of("detect", "retry", "failover", "retry after detection",
                        "broken declarations per retried chain", "ideal detect", "ideal retry"),
                results.lines().stream().map(Measurement::label).toList());
    }
}
