package io.rpcc.legacy;

/**
 * {@link LegacyWrapperTest} with mutual TLS between every rpcc node (certificates of one test CA):
 * the same chains and errors, and each legacy service is told that the originator was verified
 * ({@code x-rpcc-originator-verified: true}), since the chain's signature proved it to the wrapper.
 */
class LegacyWrapperTlsTest extends LegacyWrapperTest {
    @Override
    boolean tls() {
        return true;
    }
}
