package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.copy.StreamCopy;
import io.rpcc.testkit.WanTopology;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The copy-stream example copies a real file every way over the emulated WAN, with and without data
 * streams, each copy checked byte for byte by the runner (a copy that differs fails it); nothing
 * about the timings is asserted.
 */
class StreamCopyTest {
    @Test
    void everyVariantCopiesTheFileWhole() throws Exception {
        Results r = StreamCopy.run(WanTopology.REDMOND, List.of(1), 1, Duration.ZERO);
        assertEquals(5, r.lines().size());
        for (Measurement m : r.lines()) {
            assertTrue(m.medianMs() > 0, m.toString());
            assertEquals(1024, m.param());
        }
    }
}
