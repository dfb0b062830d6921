package io.rpcc.core.internal.transport;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Jazzer fuzz target for frame bodies (version, type, payload) of arbitrary bytes through the decoder, checked as {@link WireFuzz} says.
 * A class of its own, so that it fuzzes in a JVM of its own while the other targets fuzz in theirs.
 */
class FrameBodyFuzzTest extends WireFuzz {
    /** A frame body (version, type, payload) of arbitrary bytes. */
    @MethodSource("frameBodies")
    @FuzzTest(maxDuration = "10s")
    void frameBody(byte[] body) {
        count("frameBody");
        checkDecode(body);
    }
}
