package io.rpcc.core.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The stress depth switch: default, long, a test's own size, and a misspelt value refused. */
class StressDepthTest {
    private static final String OWN = "rpcc.stress.depthTest.chains";
    private final String depthBefore = System.getProperty(StressDepth.PROPERTY);
    private final String seedBefore = System.getProperty(StressDepth.SEED_PROPERTY);

    @AfterEach
    void restore() {
        restore(StressDepth.PROPERTY, depthBefore);
        restore(StressDepth.SEED_PROPERTY, seedBefore);
        System.clearProperty(OWN);
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }

    @Test
    void theDefaultSizeUnlessLongIsAsked() {
        System.clearProperty(StressDepth.PROPERTY);
        assertEquals(4_000, StressDepth.size(4_000, 10_000));
        System.setProperty(StressDepth.PROPERTY, "long");
        assertEquals(10_000, StressDepth.size(4_000, 10_000));
        System.setProperty(StressDepth.PROPERTY, "default");
        assertEquals(4_000, StressDepth.size(4_000, 10_000));
    }

    @Test
    void aTestsOwnPropertyWins() {
        System.setProperty(StressDepth.PROPERTY, "long");
        System.setProperty(OWN, "17");
        assertEquals(17, StressDepth.size(OWN, 4_000, 10_000));
        System.clearProperty(OWN);
        assertEquals(10_000, StressDepth.size(OWN, 4_000, 10_000));
    }

    @Test
    void aMisspeltDepthIsRefusedNotRunShort() {
        System.setProperty(StressDepth.PROPERTY, "lnog");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StressDepth.size(1, 2));
        assertTrue(e.getMessage().contains("-Drpcc.stress=long"), e.getMessage());
    }

    @Test
    void aGivenSeedIsReplayed() {
        System.setProperty(StressDepth.SEED_PROPERTY, "42");
        assertEquals(42L, StressDepth.seed(StressDepthTest.class));
    }
}
