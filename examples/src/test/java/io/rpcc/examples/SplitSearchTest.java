package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.search.SplitSearch;
import io.rpcc.testkit.WanTopology;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The split search's ideals from the topology, and the runner end to end. */
class SplitSearchTest {
    @Test
    void theSplitWaitsForTheFarthestShardTheSequentialChainForEveryHop() {
        WanTopology t = WanTopology.paperFigure7();
        // Redmond: 1 ms to the front end and back; Mountain View 16, Beijing 73, Cambridge 105 ms one way
        assertEquals(1 + 2 * 105 + 1, SplitSearch.idealSplitMs(t, 3), 1e-9);
        assertEquals(1 + 2 * 16 + 1, SplitSearch.idealSplitMs(t, 1), 1e-9);
        // front end → Mountain View → Beijing → Cambridge → client
        assertEquals(1 + 16 + 90 + 177 + 105, SplitSearch.idealSequentialMs(t, 3), 1e-9);
        assertEquals(SplitSearch.idealSplitMs(t, 1), SplitSearch.idealSequentialMs(t, 1) + 1, 1e-9,
                "one shard: the split only adds the way back through the front end");
    }

    @Test
    void runsBothVariantsAndTheSplitIsFasterOverThreeSites() throws Exception {
        Results results = SplitSearch.run(WanTopology.paperFigure7(), List.of(3), 1, Duration.ZERO);
        assertEquals(List.of("split", "sequential", "ideal split", "ideal sequential"),
                results.lines().stream().map(Measurement::label).toList());
        Measurement split = results.measured("split", 3, null);
        Measurement sequential = results.measured("sequential", 3, null);
        assertTrue(split.medianMs() < sequential.medianMs(), split + " vs " + sequential);
        assertTrue(split.medianMs() >= results.ideal("split", 3, null).medianMs() * 0.95,
                "no faster than the topology allows: " + split);
    }
}
