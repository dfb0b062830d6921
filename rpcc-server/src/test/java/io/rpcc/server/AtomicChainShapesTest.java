package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.SubChain;
import io.rpcc.core.SubChainRecovery;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.server.atomic.TxVar;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Atomic chains of other shapes on real nodes: a sub-chain is part of its parent's transaction (it
 * commits with it); a sub-chain's failure handled by its failure handler is a try/catch (the
 * transaction goes on); partial replies are delivered only when the chain commits.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AtomicChainShapesTest {
    static final TxVar<Long> X = TxVar.of("x", 100L);
    static final TxVar<Long> Y = TxVar.of("y", 100L);
    static Cluster cluster;
    static RpccServer a;
    static RpccServer b;
    static RpccClient client;

    static TxVar<Long> var() {
        return ChainContext.current().node().equals("a") ? X : Y;
    }

    static Object add(long n) {
        TxVar<Long> v = var();
        v.set(v.get() + n);
        return n;
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String name : List.of("a", "b")) {
            RpccServer s = cluster.server(name, c -> c
                    .service("add", p -> add((Long) p))
                    .service("addAndReply", p -> {
                        ChainContext.current().preturn("added " + p + " at " + ChainContext.current().node());
                        return add((Long) p);
                    })
                    .service("fail", p -> {
                        throw new IllegalStateException("no");
                    })
                    .service("addThenSub", p -> {
                        add((Long) p);
                        return SubChain.to("b", "add").params(p);
                    })
                    .service("addThenFailingSub", p -> {
                        add((Long) p);
                        return SubChain.to("b", "fail").params(p).onFailure(e -> SubChainRecovery.recover(-1L));
                    }));
            if (name.equals("a")) {
                a = s;
            } else {
                b = s;
            }
        }
        client = cluster.client(c -> c.heartbeats(
                io.rpcc.client.Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(60))));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    static void eventually(BooleanSupplier condition, String what) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("not within 20 s: " + what);
            }
            Thread.onSpinWait();
        }
    }

    static void locksFree() {
        eventually(() -> a.transactions().locksHeld() == 0 && b.transactions().locksHeld() == 0, "locks freed");
    }

    @Test
    void aNodeLostMidChainAbortsTheChainAndFreesTheLocksAtTheOthers() throws Exception {
        Blackout blackout = new Blackout();
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        RpccServer c = cluster.server("c", s -> s.pipelineCustomizer(blackout.customizer()).service("hang", p -> {
            entered.countDown();
            Thread.sleep(60_000); // the hop the node goes silent under
            return p;
        }));
        long x0 = X.get();
        try {
            java.util.concurrent.CompletableFuture<ChainResult> f = client.startChain(ChainCall.along(StaticRoute.of(
                    StaticRoute.hop("a", "add"), StaticRoute.hop("c", "hang")), 9L).atomic()
                    .heartbeats(io.rpcc.client.Heartbeats.every(Duration.ofMillis(300), Duration.ofSeconds(1)))
                    .timeout(Duration.ofSeconds(60)));
            org.junit.jupiter.api.Assertions.assertTrue(entered.await(30, TimeUnit.SECONDS));
            eventually(() -> a.transactions().locksHeld() > 0, "a holds the chain's lock");
            blackout.cut(); // c freezes mid-hop, closing nothing: as a machine that died
            CompletionException e = assertThrows(CompletionException.class, f::join);
            assertInstanceOf(io.rpcc.core.BrokenChainException.class, e.getCause(), "declared broken, so aborted");
            locksFree();
            assertEquals(x0, X.get(), "the work at a was rolled back");
        } finally {
            blackout.heal();
            c.close();
        }
    }

    static final io.rpcc.core.ChainingFunctionSource FAN = io.rpcc.core.ChainingFunctionSource.javaResource(
            AtomicChainShapesTest.class, "/chains/Fan.java");

    /** The chain: {@code add} at a, then a split into {@code to}'s branches, merged at a by Fan's merge. */
    static ChainCall split(String to, long amount) {
        return ChainCall.to("a", "add").params(amount).chainingFunction(FAN).state(io.rpcc.core.ChainState.of(
                "step", "split", "to", to, "mergeAt", "", "merge", "fn", "then", "").with("inner", "")).atomic();
    }

    @Test
    void theBranchesOfASplitCommitTogetherWithTheirChain() {
        long x0 = X.get();
        long y0 = Y.get();
        ChainResult r = client.runChain(split("a:add,b:add", 2));
        assertEquals("[2|2]", r.value());
        assertEquals(x0 + 4, X.get(), "hop 1 and branch 0 at a");
        assertEquals(y0 + 2, Y.get(), "branch 1 at b");
        locksFree();
    }

    @Test
    void aFailedBranchTheMergeHandlesIsACatchAndTheRestCommits() {
        long x0 = X.get();
        long y0 = Y.get();
        ChainResult r = client.runChain(split("a:add,b:fail", 2));
        assertEquals("[2|!2:IllegalStateException@b#2]", r.value());
        assertEquals(x0 + 4, X.get());
        assertEquals(y0, Y.get());
        locksFree();
    }

    @Test
    void aSubChainIsPartOfItsParentsTransaction() {
        long x0 = X.get();
        long y0 = Y.get();
        ChainResult r = client.runChain(ChainCall.to("a", "addThenSub").params(3L).atomic());
        assertEquals(3L, r.value());
        assertEquals(x0 + 3, X.get());
        assertEquals(y0 + 3, Y.get());
        locksFree();
    }

    @Test
    void aSubChainFailureItsHandlerRecoversFromIsACatchAndTheTransactionGoesOn() {
        long x0 = X.get();
        long y0 = Y.get();
        ChainResult r = client.runChain(ChainCall.to("a", "addThenFailingSub").params(4L).atomic());
        assertEquals(-1L, r.value());
        assertEquals(x0 + 4, X.get(), "the parent's work commits");
        assertEquals(y0, Y.get());
        locksFree();
    }

    @Test
    void partialRepliesAreDeliveredOnlyWhenTheChainCommits() {
        ChainResult r = client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "addAndReply"),
                StaticRoute.hop("b", "addAndReply")), 1L).atomic());
        assertEquals(List.of("added 1 at a", "added 1 at b"), r.replies());
        long x0 = X.get();
        ReplySet<Object> aborted = client.startChainWithReplies(ChainCall.along(StaticRoute.of(
                StaticRoute.hop("a", "addAndReply"), StaticRoute.hop("b", "fail")), 1L).atomic()
                .timeout(Duration.ofSeconds(30)), Object.class);
        assertEquals(List.of(), aborted.stream().toList(), "the reply of hop 1 is dropped with its transaction");
        CompletionException e = assertThrows(CompletionException.class, () -> aborted.result().join());
        assertInstanceOf(TransactionAbortedException.class, e.getCause());
        locksFree();
        assertEquals(x0, X.get());
    }
}
