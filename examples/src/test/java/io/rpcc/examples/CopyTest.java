package io.rpcc.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.examples.copy.Copy;
import io.rpcc.testkit.WanTopology;
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
    void bothVariantsCopyTheFileAndOnlyRpcCopyMovesItThroughTheClient() throws Exception {
        List<Copy.Row> rows = Copy.run(List.of(WanTopology.REDMOND), List.of(100), 1);
        assertEquals(List.of("chain", "rpc", "ideal", "ideal-rpc"), rows.stream().map(Copy.Row::variant).toList());
        Copy.Row chain = rows.get(0);
        Copy.Row rpc = rows.get(1);
        assertTrue(rpc.bytesViaClient() >= 2 * 100 * 1024, "rpc copy: the data goes down to the client and up again");
        assertTrue(chain.bytesViaClient() <= 0.05 * rpc.bytesViaClient(),
                "chain copy moved " + chain.bytesViaClient() + " bytes through the client, rpc copy " + rpc.bytesViaClient());
    }
}
