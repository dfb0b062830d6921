package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.SubChain;
import io.rpcc.core.SubChainRecovery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failures inside nested sub-chains (paper 3.8) on real nodes, every server on an executor of ONE
 * thread (so a creator that waited for its sub-chain would deadlock): a failure goes first to the
 * sub-chain's creator, whose {@code onFailure} handler recovers (the parent chain goes on with the
 * recovery as the service function's result) or passes it on (the originator sees the original
 * typed failure, hop, host and path); nested levels, a handler that throws, and termination (the
 * reply set ends, nothing stays parked, no hop in flight).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SubChainFailureTest {
    static final ChainingFunctionSource PARENT =
            ChainingFunctionSource.javaResource(SubChainFailureTest.class, "/chains/NestParent.java");
    static final ChainingFunctionSource SUB =
            ChainingFunctionSource.javaResource(SubChainFailureTest.class, "/chains/NestSub.java");
    static Cluster cluster;
    static RpccClient client;
    static final Map<String, RpccServer> servers = new ConcurrentHashMap<>();
    static final List<ExecutorService> executors = new ArrayList<>();
    /** What the handlers saw: "node:host#hop:exceptionName", and on which thread kind. */
    static final List<String> handled = new CopyOnWriteArrayList<>();

    /**
     * The service function: {@code ""} returns "leaf"; {@code "!"} replies, then throws; {@code
     * "s:mode/rest"} replies, then starts the sub-chain {@code g(rest)} at server s (chaining function
     * {@link #SUB}, which tags its result at this server) with handler {@code mode}: {@code none},
     * {@code pass} (records the failure, passes it on), {@code recover} (records it, recovers with
     * "saved(host#hop)"), {@code retry} (recovers with the sub-chain {@code g("")} at d), {@code throw}.
     */
    static Object g(Object params) {
        String spec = (String) params;
        ChainContext ctx = ChainContext.current();
        if (spec.isEmpty()) {
            return "leaf";
        }
        ctx.preturn("g@" + ctx.node() + "#" + ctx.hop());
        if (spec.equals("!")) {
            throw new IllegalStateException("boom at " + ctx.node());
        }
        int slash = spec.indexOf('/');
        String head = spec.substring(0, slash);
        String rest = spec.substring(slash + 1);
        String server = head.substring(0, head.indexOf(':'));
        String mode = head.substring(head.indexOf(':') + 1);
        String me = ctx.node();
        SubChain sub = SubChain.to(server, "g").params(rest).chainingFunction(SUB).state(ChainState.of("at", me));
        return switch (mode) {
            case "none" -> sub;
            case "pass" -> sub.onFailure(e -> {
                handled.add(me + ":" + e.host() + "#" + e.hop() + ":" + e.exceptionName());
                return SubChainRecovery.passOn();
            });
            case "recover" -> sub.onFailure(e -> {
                handled.add(me + ":" + e.host() + "#" + e.hop() + ":" + e.exceptionName()
                        + (Thread.currentThread().getName().contains("eventLoop") ? ":event-loop" : ""));
                return SubChainRecovery.recover("saved(" + e.host() + "#" + e.hop() + ")");
            });
            case "retry" -> sub.onFailure(e -> SubChainRecovery.recover(SubChain.to("d", "g").params("")));
            case "throw" -> sub.onFailure(e -> {
                throw new UnsupportedOperationException("handler of " + me + " gives up");
            });
            default -> throw new IllegalArgumentException(mode);
        };
    }

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        for (String name : List.of("a", "b", "c", "d")) {
            ExecutorService one = Executors.newSingleThreadExecutor();
            executors.add(one);
            servers.put(name, cluster.server(name, b -> b.executor(one)
                    .service("g", SubChainFailureTest::g)
                    .service("tag", p -> p + "+" + ChainContext.current().node())));
        }
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        executors.forEach(ExecutorService::shutdownNow);
    }

    @BeforeEach
    void clear() {
        handled.clear();
    }

    static ChainCall chain(String spec) {
        return ChainCall.to("a", "g").params(spec).chainingFunction(PARENT).state(ChainState.of("tagAt", "d"))
                .timeout(Duration.ofSeconds(20));
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void aHandlerThatRecoversGivesTheParentItsResultAndTheChainGoesOn(boolean interactive) {
        ChainResult r = client.runChain(chain("b:recover/!").interactive(interactive));
        // b failed at hop 2; a's handler recovered with "saved(b#2)", the result of a's service function:
        // the parked parent function (not the sub-chain's) runs with it and tags it at d
        assertEquals("saved(b#2)+d", r.value());
        assertEquals(List.of("a", "b", "d"), r.path());
        assertEquals(List.of("a:b#2:java.lang.IllegalStateException"), handled);
        assertEquals(List.of("g@a#1", "g@b#2"), r.replies().stream().sorted().toList());
        assertFinished();
    }

    @ParameterizedTest(name = "interactive={0}")
    @ValueSource(booleans = {false, true})
    void aHandlerThatPassesOnLetsTheOriginatorSeeTheOriginalTypedFailure(boolean interactive) {
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class,
                () -> client.runChain(chain("b:pass/c:none/!").interactive(interactive)));
        assertEquals("c", e.host());
        assertEquals(3, e.hop(), e::getMessage);
        assertEquals(List.of("a", "b", "c"), e.path());
        assertEquals("java.lang.IllegalStateException", e.exceptionName());
        assertTrue(e.remoteMessage().contains("boom at c"), e.remoteMessage());
        assertEquals(List.of("a:c#3:java.lang.IllegalStateException"), handled, "a's handler saw it, typed, first");
        List<String> details = e.failure().details();
        // b composes (the default) and has no handler: it parked nothing, and passes the failure on from the stack
        assertTrue(details.get(details.size() - 2).contains("passed on by 'b', which started the sub-chain (composed"),
                details::toString);
        assertTrue(details.getLast().contains("passed on by the failure handler of hop 1 ('g' at 'a')"),
                details::toString);
        assertFinished();
    }

    @Test
    void aNestedFailureSkipsALevelWithoutHandlerAndTheOuterHandlerRecovers() {
        // a (recover) → b (no handler) → c fails: b passes it on, a recovers; b's parked hop is dropped
        ChainResult r = client.runChain(chain("b:recover/c:none/!"));
        assertEquals("saved(c#3)+d", r.value());
        assertEquals(List.of("a", "b", "c", "d"), r.path());
        assertEquals(List.of("a:c#3:java.lang.IllegalStateException"), handled);
        assertFinished();
    }

    @Test
    void aHandlerThatRecoversWithASubChainStartsIt() {
        ChainResult r = client.runChain(chain("b:retry/!"));
        assertEquals("leaf+d", r.value());
        assertEquals(List.of("a", "b", "d", "d"), r.path());
        assertFinished();
    }

    @Test
    void aHandlerThatThrowsFailsTheChainNamingTheCreatorsHop() {
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class,
                () -> client.runChain(chain("b:throw/c:none/!")));
        assertEquals("a", e.host());
        assertEquals(1, e.hop(), e::getMessage);
        assertEquals("java.lang.UnsupportedOperationException", e.exceptionName());
        assertTrue(e.remoteMessage().contains("failure handler of the sub-chain started by hop 1 ('g' at 'a')"),
                e.remoteMessage());
        assertTrue(e.remoteMessage().contains("IllegalStateException from hop 3 at 'c'"), e.remoteMessage());
        assertEquals(List.of("a", "b", "c"), e.path());
        assertFinished();
    }

    @Test
    void aHandlerThatThrowsIsItselfAFailureTheNextCreatorHandles() {
        ChainResult r = client.runChain(chain("b:recover/c:throw/d:none/!"));
        assertEquals("saved(b#2)+d", r.value(), "a's handler got the failure of b's handler, at b's hop 2");
        assertFinished();
    }

    @Test
    void theReplySetEndsAfterEveryReplyOfAFailedAndRecoveredSubChain() {
        ReplySet<String> set = client.startChainWithReplies(chain("b:recover/c:none/!"), String.class);
        List<String> got = new ArrayList<>();
        set.forEach(got::add);
        assertEquals(List.of("g@a#1", "g@b#2", "g@c#3"), got.stream().sorted().toList());
        assertEquals("saved(c#3)+d", set.result().join().value());
        assertEquals(0, set.arrivedAfterEnd());
        assertFinished();
    }

    @Test
    void withoutHandlersAFailurePassesEveryLevelToTheOriginator() {
        // no handler anywhere: the failure reaches the originator typed; the servers keep serving
        ChainException e = assertThrows(ServiceFunctionException.class, () -> client.runChain(chain("b:none/!")));
        assertEquals("b", e.host());
        assertEquals("leaf+a+d", client.runChain(chain("b:none/")).value());
        assertFinished();
    }

    static void assertFinished() {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((parked() > 0 || inFlight() > 0 || client.chainsInFlight() > 0) && System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        assertEquals(0, parked(), "no hop stays parked");
        assertEquals(0, inFlight(), "no hop in flight");
        assertEquals(0, client.chainsInFlight(), "the chain finished at its originator (all credit home)");
        assertEquals(0, client.lateFrames());
    }

    static int parked() {
        return servers.values().stream().mapToInt(RpccServer::parkedChains).sum();
    }

    static int inFlight() {
        return servers.values().stream().mapToInt(RpccServer::hopsInFlight).sum();
    }
}
