package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.copy.Copy;
import io.rpcc.examples.copy.CopyModel;
import io.rpcc.testkit.WanTopology;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The copy example copies real files both ways over the emulated WAN; chain copy keeps the data off the client. */
class CopyTest {
    @Test
    void idealFollowsTheLinks() {
        WanTopology t = Copy.topology();
        // one 32 KB block from Redmond: 16 ms there, 3.3 ms between servers at 10 MB/s + 1 ms, 16 ms back
        assertEquals(16 + 32768 / 10_000.0 + 1 + 16, Copy.idealMs(t, WanTopology.REDMOND, 32768, true), 0.01);
        // RPC copy of it: 16 ms there, 5.2 ms down at 6.3 MB/s + 16 ms, 5.2 ms up + 16 ms, 16 ms ack
        assertEquals(16 + 2 * 32768 / 6_300.0 + 16 + 16 + 16, Copy.idealMs(t, WanTopology.REDMOND, 32768, false), 0.01);
    }

    @Test
    void idealPipelinesDepthBlocksAtATime() {
        WanTopology t = Copy.topology();
        long bytes = 2L * Copy.DEPTH * Copy.BLOCK; // two rounds of DEPTH blocks
        double tx = Copy.BLOCK / 10_000.0; // ms per block between the servers
        // the first round queues on the servers' link; block 8 + k starts when block k is acknowledged, 33 + (k + 1) tx
        double firstDone = 16 + tx + 1 + 16;
        assertEquals(firstDone + 16 + Copy.DEPTH * tx + 1 + 16, Copy.idealMs(t, WanTopology.REDMOND, bytes, true), 0.01);
        assertEquals(4, CopyModel.hops(bytes, 1));
    }

    @Test
    void connectionsShareALinkFairly() {
        WanTopology t = Copy.topology();
        double tx = Copy.BLOCK / 6_300.0; // ms per block on the Redmond link
        // two clients' RPC copies of one block: the blocks go down the link side by side, in turns
        // of one slice, and so back up: each hop of data ends after both blocks, 2 tx (first come
        // first served, one client would finish a block's transmission earlier, the other as late)
        double both = CopyModel.idealMs(t, WanTopology.REDMOND, Copy.BLOCK, false, 2, 1);
        assertEquals(16 + 2 * tx + 16 + 2 * tx + 16 + 16, both, 0.5);
    }

    @Test
    void clientsUnderLoadShareTheLinks() {
        WanTopology t = Copy.topology();
        long bytes = 256 * 1024;
        double one = CopyModel.idealMs(t, WanTopology.REDMOND, bytes, false, 1, 4);
        double eight = CopyModel.idealMs(t, WanTopology.REDMOND, bytes, false, 8, 4);
        // eight RPC-copy clients move 8 x 4 x 256 KB down and up the 6.3 MB/s Redmond link: bandwidth-bound
        assertTrue(eight >= 8 * 4 * bytes / 6_300.0, "eight clients took " + eight + " ms");
        assertTrue(eight > 2 * one, "one client " + one + " ms, eight " + eight + " ms");
        double chainEight = CopyModel.idealMs(t, WanTopology.REDMOND, bytes, true, 8, 4);
        assertTrue(chainEight >= 8 * 4 * bytes / 10_000.0 && chainEight < eight, "chain copy, eight clients: " + chainEight);
    }

    @Test
    void bothVariantsCopyTheFileAndOnlyRpcCopyMovesItThroughTheClient() throws Exception {
        Results results = Copy.run(List.of(WanTopology.REDMOND), List.of(100), 1, Duration.ZERO);
        assertEquals(List.of("chain", "rpc", "ideal chain", "ideal rpc"), results.lines().stream().map(Measurement::label).toList());
        Measurement chain = results.measured("chain", 100, WanTopology.REDMOND);
        Measurement rpc = results.measured("rpc", 100, WanTopology.REDMOND);
        assertTrue(rpc.bytesViaClient() >= 2 * 100 * 1024, "rpc copy: the data goes down to the client and up again");
        assertTrue(chain.bytesViaClient() <= 0.05 * rpc.bytesViaClient(),
                "chain copy moved " + chain.bytesViaClient() + " bytes through the client, rpc copy " + rpc.bytesViaClient());
        assertTrue(chain.json().contains("\"bytes_via_client\":" + chain.bytesViaClient()), chain.json());
    }
}
