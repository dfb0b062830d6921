package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.server.atomic.TxVar;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The termination credit of an atomic chain when a hop fails AFTER its vote went out (the vote
 * carries half of the hop's credit): the rest of the hop's credit, not the whole of it, comes home
 * with the failure, so the chain ends at once with exactly one unit (an over-credit keeps it from
 * ever ending: it would wait for its timeout). The hop fails after its vote in its chaining step,
 * held there by a server interceptor: its server is closed (the node reports the hops it abandons,
 * with their credit), or the interceptor throws.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AtomicCreditTest {
    /** Variables of this test only (a closed server's participant keeps its locks: the next test must not meet them). */
    final TxVar<Long> X = TxVar.of("credit-x", 100L);
    final TxVar<Long> Y = TxVar.of("credit-y", 100L);
    /** The chain's timeout: far longer than the chain takes when its credit adds up. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    Cluster cluster = new Cluster();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        cluster.close();
    }

    /** Server {@code a}, whose interceptor runs {@code chaining} around each chaining step; and {@code b}. */
    RpccServer servers(ServerInterceptor chaining) {
        RpccServer a = cluster.server("a", s -> s.service("add", p -> {
            X.set(X.get() + (Long) p);
            return p;
        }).interceptor(chaining));
        cluster.server("b", s -> s.service("add", p -> {
            Y.set(Y.get() + (Long) p);
            return p;
        }));
        return a;
    }

    RpccClient client() {
        return cluster.client(c -> c.timeout(TIMEOUT)
                .heartbeats(io.rpcc.client.Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(60))));
    }

    static ChainCall aThenB() {
        return ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "add"), StaticRoute.hop("b", "add")), 5L)
                .atomic().timeout(TIMEOUT);
    }

    /** What the chain's future failed with, within half of its timeout (an over-credited chain waits for all of it). */
    static Throwable failure(CompletableFuture<?> f) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> f.get(TIMEOUT.toSeconds() / 2, TimeUnit.SECONDS),
                "the chain ended (a hang here is an over-credited chain waiting for its timeout)");
        return e.getCause();
    }

    @Test
    void aServerClosedAfterItsHopVotedReturnsOnlyTheRestOfTheHopsCredit() throws Exception {
        RpccServer a = servers(new ServerInterceptor() {
            @Override
            public NextHop interceptChaining(ChainContext context, ChainState state, Object result,
                                             ChainingFunction next) throws Exception {
                entered.countDown(); // the hop's service function ran and its vote went out
                release.await(60, TimeUnit.SECONDS);
                return next.apply(state, result);
            }
        });
        RpccClient client = client();
        CompletableFuture<?> f = client.startChain(aThenB());
        assertTrue(entered.await(30, TimeUnit.SECONDS));
        Thread.sleep(200); // (the vote, sent before the chaining step, is on its way: it arrives before the failure)
        a.close(); // hop 1 is abandoned: NODE_CLOSED goes to the originator with what is left of its credit
        release.countDown();
        Throwable t = failure(f);
        TransactionAbortedException aborted = assertInstanceOf(TransactionAbortedException.class, t);
        assertTrue(String.valueOf(aborted.getMessage()).contains("closed"), "aborted for the closed server: " + aborted);
        assertEquals(100L, Y.get(), "b never ran");
    }

    @Test
    void aHopFailingInItsChainingStepAfterItsVoteEndsTheChainWithExactCredit() throws Exception {
        servers(new ServerInterceptor() {
            @Override
            public NextHop interceptChaining(ChainContext context, ChainState state, Object result,
                                             ChainingFunction next) {
                throw new IllegalStateException("the chaining step fails after the vote");
            }
        });
        RpccClient client = client();
        Throwable t = failure(client.startChain(aThenB()));
        TransactionAbortedException aborted = assertInstanceOf(TransactionAbortedException.class, t);
        assertEquals(100L, X.get(), "the work at a was rolled back");
        assertEquals(100L, Y.get(), "b never ran");
    }
}
