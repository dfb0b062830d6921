package io.rpcc.examples.atomic;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.RpccServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The yardstick of the atomic-chain figures is a real two-phase commit: locks held to the commit, writes applied only then. */
class PlainTwoPhaseCommitTest {
    private final List<AutoCloseable> nodes = new ArrayList<>();
    private final List<PlainTwoPhaseCommit.Participant> participants = new ArrayList<>();
    private RpccClient client;

    @BeforeEach
    void start() {
        StaticNameResolver names = new StaticNameResolver();
        for (String name : List.of("p1", "p2")) {
            PlainTwoPhaseCommit.Participant p = new PlainTwoPhaseCommit.Participant(name, new AtomicLong());
            participants.add(p);
            RpccServer s = p.serve(RpccServer.builder(name).resolver(names)).build().start();
            names.register(name, s.address());
            nodes.add(s);
        }
        client = RpccClient.builder().name("coordinator").resolver(names).build().start();
        nodes.add(client);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable n : nodes.reversed()) {
            n.close();
        }
    }

    @Test
    void aPreparedTransactionHoldsItsLocksAndAppliesOnlyOnCommit() {
        ChainCall writeA = ChainCall.along(StaticRoute.of(StaticRoute.hop("p1", PlainTwoPhaseCommit.WRITE),
                StaticRoute.hop("p2", PlainTwoPhaseCommit.WRITE)), "A k a");
        client.runChain(writeA);
        assertEquals("yes", client.call("p1", PlainTwoPhaseCommit.PREPARE, "A").join().value());
        assertEquals("yes", client.call("p2", PlainTwoPhaseCommit.PREPARE, "A").join().value());

        // B writes the key A holds: its step fails, the coordinator aborts it
        PlainTwoPhaseCommit coordinator = new PlainTwoPhaseCommit(client, "p1", "p2");
        PlainTwoPhaseCommit.Run b = coordinator.start("B", "k");
        assertFalse(b.decision().join());
        assertFalse(b.done().join());
        for (PlainTwoPhaseCommit.Participant p : participants) {
            assertNull(p.committed("k"), "nothing is applied before the commit");
            assertEquals(1, p.locked(), "A still holds its lock after B's abort");
        }

        client.call("p1", PlainTwoPhaseCommit.COMMIT, "A").join();
        client.call("p2", PlainTwoPhaseCommit.COMMIT, "A").join();
        for (PlainTwoPhaseCommit.Participant p : participants) {
            assertEquals("a", p.committed("k"), "A's write is applied on its commit");
            assertEquals(0, p.locked());
        }

        // with the lock free, the coordinator commits a transaction on the same key
        PlainTwoPhaseCommit.Run c = coordinator.start("C", "k");
        assertTrue(c.done().join());
        for (PlainTwoPhaseCommit.Participant p : participants) {
            assertEquals("C", p.committed("k"));
            assertEquals(0, p.locked());
        }
    }
}
