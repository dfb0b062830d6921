package io.rpcc.core.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainState;
import io.rpcc.core.TypeRegistry;
import org.junit.jupiter.api.Test;

/** The encoded size of a chain state, as the adaptive state fall-back weighs it. */
class StateBytesTest {
    private final WireFormat wire = new WireFormat(new Serialization(TypeRegistry.empty()));

    @Test
    void aByteArrayCountsItsLengthAndAFewBytes() {
        long size = wire.stateBytes(ChainState.of("blob", new byte[1_000_000]));
        assertTrue(size >= 1_000_000 && size <= 1_000_020, "size " + size);
        assertEquals(1, wire.stateBytes(ChainState.empty()));
    }

    @Test
    void otherValuesAreCountedAsWritten() {
        long size = wire.stateBytes(ChainState.of("name", "a".repeat(1_000), "count", 42));
        assertTrue(size >= 1_000 && size <= 1_100, "size " + size);
    }
}
