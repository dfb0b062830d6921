package io.rpcc.core.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    @Test
    void countingStopsPastTheLimit() {
        ChainState large = ChainState.of("text", "a".repeat(10_000_000));
        WireFormat.StateSize stopped = wire.stateSize(large, 100_000);
        // the rest of the 10 MB string was not written: the count stops within a buffer of the limit
        assertFalse(stopped.exact());
        assertTrue(stopped.bytes() > 100_000 && stopped.bytes() <= 100_000 + 2 * 8192, "stopped at " + stopped);
        long full = wire.stateBytes(large);
        assertTrue(full >= 10_000_000, "size " + full);
        assertEquals(new WireFormat.StateSize(full, true), wire.stateSize(large, full), "exact at the limit");
        assertEquals(new WireFormat.StateSize(wire.stateBytes(ChainState.of("name", "x")), true),
                wire.stateSize(ChainState.of("name", "x"), 1_000));
    }

    @Test
    void byteArraysCountTowardsTheLimit() {
        ChainState state = ChainState.of("blob", new byte[90_000], "text", "a".repeat(1_000_000));
        WireFormat.StateSize stopped = wire.stateSize(state, 100_000);
        assertFalse(stopped.exact());
        assertTrue(stopped.bytes() > 100_000 && stopped.bytes() <= 100_000 + 2 * 8192, "stopped at " + stopped);
        // a byte array's size is its length: exact past the limit too
        WireFormat.StateSize blob = wire.stateSize(ChainState.of("blob", new byte[200_000]), 100_000);
        assertTrue(blob.exact() && blob.bytes() >= 200_000, blob.toString());
        // the serializers are sound after a stop: an exact count again
        assertEquals(wire.stateBytes(ChainState.of("name", "a".repeat(1_000))),
                wire.stateSize(ChainState.of("name", "a".repeat(1_000)), Long.MAX_VALUE).bytes());
    }
}
