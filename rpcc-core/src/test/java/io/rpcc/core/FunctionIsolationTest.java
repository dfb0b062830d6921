package io.rpcc.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Where a chain's Java functions run, from the node's setting and the level its server's chain policy chose. */
class FunctionIsolationTest {
    @Test
    void byTrustFollowsThePolicysLevel() {
        assertEquals(FunctionIsolation.IN_PROCESS, FunctionIsolation.BY_TRUST.forLevel(IsolationLevel.IN_PROCESS));
        assertEquals(FunctionIsolation.PROCESS, FunctionIsolation.BY_TRUST.forLevel(IsolationLevel.ISOLATED));
    }

    @Test
    void theOtherSettingsAreThemselvesWhateverThePolicyChose() {
        for (IsolationLevel level : IsolationLevel.values()) {
            assertEquals(FunctionIsolation.PROCESS, FunctionIsolation.PROCESS.forLevel(level));
            assertEquals(FunctionIsolation.IN_PROCESS, FunctionIsolation.IN_PROCESS.forLevel(level));
        }
    }

    @Test
    void parsesTheNodePropertyValues() {
        assertEquals(FunctionIsolation.IN_PROCESS, FunctionIsolation.parse("in-process"));
        assertEquals(FunctionIsolation.PROCESS, FunctionIsolation.parse(" Process "));
        assertEquals(FunctionIsolation.BY_TRUST, FunctionIsolation.parse("by-trust"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FunctionIsolation.parse("never"));
        assertTrue(e.getMessage().contains("in-process, process or by-trust"), e.getMessage());
    }
}
