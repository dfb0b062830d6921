package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.rpcc.client.AtomicCompletion;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.core.internal.wire.TxFrames;
import io.rpcc.server.atomic.TxVar;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link AtomicCompletion}: an atomic chain a → b whose originator's DECIDE is held back at b (its
 * connections keep it, as a slow link would, and let it through when released). With
 * {@link AtomicCompletion#DECIDED} the caller gets the result anyway, while b still holds the
 * transaction's locks; a second atomic chain that reads b's variable waits for them and sees the
 * first chain's write once the DECIDE is let through. With {@link AtomicCompletion#APPLIED} the caller
 * waits for the DECIDE to be applied. An abort fails the call in both.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AtomicDecidedCompletionTest {
    static final StaticRoute ROUTE = StaticRoute.of(StaticRoute.hop("a", "add"), StaticRoute.hop("b", "add"));
    final TxVar<Long> va = TxVar.of("decided.a", 100L);
    final TxVar<Long> vb = TxVar.of("decided.b", 100L);
    final HoldDecides held = new HoldDecides();
    Cluster cluster;
    RpccServer b;
    RpccClient client;

    /**
     * Keeps every DECIDE of an originator that a server's connections read, once armed, and passes
     * them on, in order, on their connections' event loops, when released.
     */
    static final class HoldDecides extends ChannelInboundHandlerAdapter {
        volatile boolean armed;
        final AtomicInteger kept = new AtomicInteger();
        private final List<Runnable> later = new ArrayList<>();

        Consumer<ChannelPipeline> customizer() {
            return p -> p.addBefore("rpcc", "hold-decides", this);
        }

        @Override
        public boolean isSharable() {
            return true;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            synchronized (this) {
                if (armed && msg instanceof TxFrames.Decide d && !d.fromPeer()) {
                    kept.incrementAndGet();
                    later.add(() -> ctx.executor().execute(() -> ctx.fireChannelRead(msg)));
                    return;
                }
            }
            ctx.fireChannelRead(msg);
        }

        /** Lets the DECIDEs kept so far through, and every later one. */
        void release() {
            List<Runnable> go;
            synchronized (this) {
                armed = false;
                go = new ArrayList<>(later);
                later.clear();
            }
            go.forEach(Runnable::run);
        }
    }

    @BeforeEach
    void start() {
        cluster = new Cluster();
        cluster.server("a", s -> s.service("add", p -> {
            va.set(va.get() + (Long) p);
            return p;
        }));
        b = cluster.server("b", s -> s.pipelineCustomizer(held.customizer())
                .service("add", p -> {
                    vb.set(vb.get() + (Long) p);
                    return vb.get();
                })
                .service("read", p -> vb.get())
                .service("refuse", p -> {
                    vb.set(vb.get() + (Long) p);
                    throw new IllegalStateException("refused at b");
                }));
        client = cluster.client();
    }

    @AfterEach
    void stop() throws Exception {
        held.release();
        cluster.close();
    }

    @Test
    void decidedReturnsBeforeTheDecideIsAppliedAndALaterAtomicChainSeesTheCommit() throws Exception {
        held.armed = true;
        CompletableFuture<ChainResult> first = client.startChain(ChainCall.along(ROUTE, 5L)
                .atomic(AtomicCompletion.DECIDED).timeout(Duration.ofSeconds(90)));
        // (held back, the DECIDE is never applied at b before the release below: a call that waited for it
        // would not complete in these 20 s, nor end by its 90 s timeout)
        assertEquals(105L, first.get(20, TimeUnit.SECONDS).value(), "the result, at the decision");
        AtomicOriginatorLostTest.eventually(() -> held.kept.get() >= 1, "b was sent the DECIDE (and keeps it)");
        assertTrue(b.transactions().locksHeld() >= 1, "b has not applied the commit: it still holds the lock");
        assertEquals(100L, vb.committed(), "outside a transaction, b's variable is still the value before the commit");
        // (a's DECIDE went out with b's: a applies it soon, not necessarily by the time b was sent its own)
        AtomicOriginatorLostTest.eventually(() -> va.committed() == 105L, "a applied the commit");

        CompletableFuture<ChainResult> read = client.startChain(ChainCall.to("b", "read").atomic()
                .timeout(Duration.ofSeconds(30)));
        AtomicOriginatorLostTest.eventually(() -> b.transactions().parkedHops() >= 1,
                "the second chain's read waits at b for the first chain's lock");
        assertFalse(read.isDone(), "the read waits for the commit to be applied at b");
        held.release();
        assertEquals(105L, read.get(30, TimeUnit.SECONDS).value(), "the second atomic chain sees the first's write");
        assertEquals(105L, vb.committed());
        AtomicOriginatorLostTest.eventually(() -> b.transactions().locksHeld() == 0, "b released the locks");
    }

    @Test
    void appliedWaitsForTheDecideToBeApplied() throws Exception {
        held.armed = true;
        CompletableFuture<ChainResult> f = client.startChain(ChainCall.along(ROUTE, 5L).atomic(AtomicCompletion.APPLIED)
                .timeout(Duration.ofSeconds(30)));
        AtomicOriginatorLostTest.eventually(() -> held.kept.get() >= 1, "b was sent the DECIDE (and keeps it)");
        // (a's DECIDE went out with b's: a applies it soon, not necessarily by the time b was sent its own)
        AtomicOriginatorLostTest.eventually(() -> va.committed() == 105L, "a applied the commit");
        Thread.sleep(200); // (a resend of the DECIDE is due after 250 ms: kept too)
        assertFalse(f.isDone(), "the call waits for b to apply the commit");
        assertEquals(100L, vb.committed());
        held.release();
        assertEquals(105L, f.get(30, TimeUnit.SECONDS).value());
        assertEquals(105L, vb.committed(), "a read after the return sees the commit");
        assertEquals(0, b.transactions().locksHeld());
    }

    @Test
    void anAbortUnderDecidedFailsTheCallAsBefore() {
        ExecutionException e = assertThrows(ExecutionException.class, () -> client.startChain(ChainCall.along(
                        StaticRoute.of(StaticRoute.hop("a", "add"), StaticRoute.hop("b", "refuse")), 5L)
                .atomic(AtomicCompletion.DECIDED).timeout(Duration.ofSeconds(30))).get(30, TimeUnit.SECONDS));
        TransactionAbortedException aborted = assertInstanceOf(TransactionAbortedException.class, e.getCause());
        assertTrue(aborted.getMessage().contains("refused at b"), aborted.getMessage());
        assertEquals(100L, va.committed(), "nothing the chain wrote took effect");
        assertEquals(100L, vb.committed());
    }
}
