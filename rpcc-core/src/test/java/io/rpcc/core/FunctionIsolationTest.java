package io.rpcc.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which isolation a chain gets from the node's setting and the peer its hop came from. */
class FunctionIsolationTest {
    @Test
    void byTrustTrustsOnlyAuthenticatedPeersAndTheNodeItself() {
        assertEquals(FunctionIsolation.IN_PROCESS, FunctionIsolation.BY_TRUST.forPeer("node:pricing"));
        assertEquals(FunctionIsolation.IN_PROCESS, FunctionIsolation.BY_TRUST.forPeer("local"));
        assertEquals(FunctionIsolation.PROCESS, FunctionIsolation.BY_TRUST.forPeer("address:10.1.2.3"));
        assertEquals(FunctionIsolation.PROCESS, FunctionIsolation.BY_TRUST.forPeer(null));
    }

    @Test
    void theOtherSettingsAreThemselvesForEveryPeer() {
        for (String peer : new String[] {"node:a", "local", "address:127.0.0.1"}) {
            assertEquals(FunctionIsolation.PROCESS, FunctionIsolation.PROCESS.forPeer(peer));
            assertEquals(FunctionIsolation.IN_PROCESS, FunctionIsolation.IN_PROCESS.forPeer(peer));
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
