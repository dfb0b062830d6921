package io.rpcc.core.internal.chain;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which hosts a router keeps the socket address of: IP literals only (host names are resolved at each use). */
class HopRouterAddressTest {
    @Test
    void ipLiteralsAreKeptHostNamesAreNot() {
        assertTrue(HopRouter.isIpLiteral("127.0.0.1"));
        assertTrue(HopRouter.isIpLiteral("10.0.0.5"));
        assertTrue(HopRouter.isIpLiteral("::1"));
        assertTrue(HopRouter.isIpLiteral("fe80::1%eth0"));
        assertFalse(HopRouter.isIpLiteral("localhost"));
        assertFalse(HopRouter.isIpLiteral("node-1.example.com"));
        assertFalse(HopRouter.isIpLiteral("1.example"));
        assertFalse(HopRouter.isIpLiteral(""));
        assertFalse(HopRouter.isIpLiteral(null));
    }
}
