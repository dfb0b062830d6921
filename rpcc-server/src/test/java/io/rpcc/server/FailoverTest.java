package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.HopUnreachableException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Failover through a name with several endpoints: a hop that cannot be handed to the primary (no one
 * listens there) goes to the backup; an endpoint that keeps failing is ejected (tried last) for a
 * period, then tried again; a name none of whose endpoints can take the hop fails with a typed error
 * naming the hop and every address tried. Real nodes on loopback.
 */
class FailoverTest {
    static final ChainingFunctionSource TO_S2 = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class ToS2 implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.callThenEnd("s2", "mark", result);
                }
            }
            """);

    private Cluster cluster;
    private RpccServer s1;
    private final AtomicInteger backupRuns = new AtomicInteger();
    private InetSocketAddress dead;
    private InetSocketAddress backup;
    private RpccClient client;

    @BeforeEach
    void start() throws IOException {
        cluster = new Cluster();
        s1 = cluster.server("s1", b -> b.outlierEjection(3, Duration.ofMillis(400)).service("step", p -> p));
        backup = cluster.server("s2", b -> b.service("mark", p -> {
            backupRuns.incrementAndGet();
            return p + "@backup";
        })).address();
        dead = deadAddress();
        cluster.names.register("s2", dead, backup);
        client = cluster.client();
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private static InetSocketAddress deadAddress() {
        return DeadAddresses.next(); // nobody listens, and no other node can take the port meanwhile
    }

    private Object chain(int i) {
        return client.runChain(ChainCall.to("s1", "step").params("x" + i).chainingFunction(TO_S2)).value();
    }

    @Test
    void aHopThePrimaryCannotTakeGoesToTheBackup() {
        assertEquals("x0@backup", chain(0));
        assertEquals(1, backupRuns.get());
        assertEquals(1, s1.stats().failovers(), "s1 failed over once");
        assertEquals(0, s1.stats().ejections());
    }

    @Test
    void anEndpointThatKeepsFailingIsTriedLastUntilItsEjectionEnds() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertEquals("x" + i + "@backup", chain(i));
        }
        assertEquals(3, s1.stats().failovers());
        assertEquals(1, s1.stats().ejections(), "three failures in a row eject the dead endpoint");
        for (int i = 3; i < 8; i++) { // ejected: the backup is tried first, no failover
            assertEquals("x" + i + "@backup", chain(i));
        }
        assertEquals(3, s1.stats().failovers(), "while ejected, the dead endpoint is not tried first");
        Thread.sleep(500); // the 400 ms ejection ends: the primary is tried again, fails, and is ejected for longer
        assertEquals("x8@backup", chain(8));
        assertEquals(4, s1.stats().failovers());
        assertEquals(2, s1.stats().ejections(), "one failure after an ejection ejects it again");
        assertEquals(9, backupRuns.get());
    }

    @Test
    void aNameNoneOfWhoseEndpointsTakesTheHopFailsNamingHopAndEveryAddress() throws Exception {
        InetSocketAddress alsoDead = deadAddress();
        cluster.names.register("s2", dead, alsoDead);
        HopUnreachableException e = assertThrows(HopUnreachableException.class, () -> chain(0));
        assertEquals(1, e.hop(), "the hop that could not send its chain on");
        assertEquals("s1", e.host());
        assertTrue(e.getMessage().contains("any of its 2 endpoints") && e.getMessage().contains(":" + dead.getPort())
                && e.getMessage().contains(":" + alsoDead.getPort()), e.getMessage());
        assertEquals(0, backupRuns.get());
        cluster.names.register("s2", dead, backup); // the server keeps serving
        assertEquals("x1@backup", chain(1));
    }

    @Test
    void theClientFailsOverForTheFirstHopToo() throws Exception {
        cluster.names.register("s1", deadAddress(), s1.address());
        assertEquals("x0@backup", chain(0));
        assertEquals(1, client.stats().failovers(), "the client failed over once, for the first hop");
    }
}
