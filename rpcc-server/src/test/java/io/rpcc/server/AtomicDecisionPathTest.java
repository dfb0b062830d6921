package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.core.ChainResult;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.client.RpccClient;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.atomic.Transaction;
import io.rpcc.server.atomic.TxVar;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The commit path of atomic chains on real nodes: each decision goes back to its voter on the
 * connection the vote came on (the originator dials no connection for it), and a read after the
 * call returned sees the commit at every hop; with many chains in flight, each commits at every hop
 * or at none.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AtomicDecisionPathTest {
    final TxVar<Long> a = TxVar.of("path-a", 0L);
    final TxVar<Long> b = TxVar.of("path-b", 0L);
    final TxVar<Long> c = TxVar.of("path-c", 0L);
    final Cluster cluster = new Cluster();

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    RpccClient threeServers() {
        cluster.server("pa", s -> s.service("add", p -> {
            if (Transaction.current() != null) { // (a plain chain only passes by)
                a.set(a.get() + (Long) p);
            }
            return p;
        }));
        cluster.server("pb", s -> s.service("add", p -> {
            if (Transaction.current() != null) { // (a plain chain only passes by)
                b.set(b.get() + (Long) p);
            }
            return p;
        }));
        cluster.server("pc", s -> s.service("add", p -> {
            if (Transaction.current() != null) { // (a plain chain only passes by)
                c.set(c.get() + (Long) p);
            }
            return p;
        }));
        return cluster.client(x -> x.timeout(Duration.ofSeconds(30)));
    }

    static ChainCall along(boolean atomic, String... servers) {
        ChainCall call = ChainCall.along(StaticRoute.of(List.of(servers).stream()
                .map(s -> StaticRoute.hop(s, "add")).toList()), 1L);
        return atomic ? call.atomic() : call;
    }

    @Test
    void theDecisionsGoBackOnTheVotesConnectionsAndAReadAfterReturnSeesTheCommit() throws Exception {
        RpccClient client = threeServers();
        client.runChain(along(false, "pa", "pb", "pc")); // the plain chain's connections: to pa, and pc's back
        int plainConnections = client.stats().connectionsOpen();
        for (int i = 1; i <= 50; i++) {
            client.runChain(along(true, "pa", "pb", "pc"));
            // returned after every acknowledgement: each server applied the commit
            assertEquals(i, a.get());
            assertEquals(i, b.get());
            assertEquals(i, c.get());
        }
        // the votes of pa and pb came on connections of their own to the client (pc's with its result, on the
        // one the plain chain's result came on); the decisions went back on those: the client dialed none to pb or pc
        assertEquals(plainConnections + 2, client.stats().connectionsOpen(),
                "the decisions went back on the connections the votes came on: none was dialed for them");
    }

    @Test
    void manyInFlightEachCommitsAtEveryHopOrNowhere() throws Exception {
        RpccClient client = threeServers();
        int chains = 200;
        List<CompletableFuture<ChainResult>> fromA = new ArrayList<>();
        List<CompletableFuture<ChainResult>> fromC = new ArrayList<>();
        for (int i = 0; i < chains; i++) { // all of them meet at pb's variable: wound-wait restarts some
            (i % 2 == 0 ? fromA : fromC).add(client.startChain(along(true, i % 2 == 0 ? "pa" : "pc", "pb")));
        }
        long committedA = committed(fromA);
        long committedC = committed(fromC);
        // each chain's future completed after its acknowledgements: what it committed is applied at both of its hops
        assertEquals(committedA, a.get());
        assertEquals(committedC, c.get());
        assertEquals(committedA + committedC, b.get());
        assertTrue(committedA + committedC > 0, "some chains committed");
    }

    /** How many of {@code chains} committed; the others were aborted (a typed exception), none failed otherwise. */
    static long committed(List<CompletableFuture<ChainResult>> chains) {
        long n = 0;
        for (CompletableFuture<ChainResult> f : chains) {
            try {
                f.get(60, TimeUnit.SECONDS);
                n++;
            } catch (ExecutionException e) {
                assertInstanceOf(TransactionAbortedException.class, e.getCause(), "an atomic chain ends committed or aborted");
            } catch (Exception e) {
                throw new AssertionError("the chain did not end", e);
            }
        }
        return n;
    }
}
