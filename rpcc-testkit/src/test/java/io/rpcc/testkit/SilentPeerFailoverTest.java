package io.rpcc.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Refusal;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connection health end to end (issue 14, item 5): the link to a server's primary is cut both ways,
 * with no FIN or RST, as a machine that vanished. The node that forwards to it PINGs the quiet
 * connection, gets no answer and closes it ({@link Refusal#SILENT_PEER}); the next hop to that name
 * cannot connect to the primary (the cut link lets no connection through) and fails over to the
 * backup. When the link heals, the primary is used again.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class SilentPeerFailoverTest {
    static final ChainingFunctionSource TO_S2 = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class ToS2 implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.callThenEnd("s2", "mark", result);
                }
            }
            """);

    @Test
    void aSilentPrimaryIsClosedAndTheNextHopFailsOverToTheBackup() throws Exception {
        WanTopology topology = WanTopology.builder().site("a").site("b")
                .link("a", "b", Duration.ofMillis(5), 50_000_000).build();
        try (WanCluster cluster = WanCluster.of(topology)) {
            RpccServer s1 = cluster.server("s1", "a", b -> b
                    .connectionHealth(Duration.ofMillis(200), Duration.ofMillis(300))
                    .connectTimeout(Duration.ofMillis(500))
                    .service("step", p -> p));
            cluster.server("s2", "b", b -> b.service("mark", p -> p + "@primary"));
            cluster.backup("s2", "a", b -> b.service("mark", p -> p + "@backup"));
            RpccClient client = cluster.client("client", "a");
            ChainCall call = ChainCall.to("s1", "step").chainingFunction(TO_S2).timeout(Duration.ofSeconds(10));

            assertEquals("x@primary", client.runChain(call.params("x")).value());
            cluster.emulator().cutBoth("a", "b");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (s1.stats().refused(Refusal.SILENT_PEER) == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(s1.stats().refused(Refusal.SILENT_PEER) >= 1, "s1 closed its quiet connection to the primary");
            assertTrue(s1.stats().pingsSent() >= 1);

            assertEquals("y@backup", client.runChain(call.params("y")).value());
            assertTrue(s1.stats().failovers() >= 1, "s1 failed over: " + s1.stats());

            cluster.emulator().healBoth("a", "b");
            Thread.sleep(1500); // the ejection of the primary (after one failure: not ejected) and its backoff pass
            assertEquals("z@primary", client.runChain(call.params("z")).value());
        }
    }
}
