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
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failures inside nested sub-chains (paper 3.8) on real nodes, every server on an executor of ONE
 * thread (so a creator that waited for its sub-chain would deadlock): a failure goes first to the
 * sub-chain's creator, whose {@code onFailure} handler recovers (the parent chain goes on with the
 * recovery as the service function's result) or passes it on (the originator sees the original
 * typed failure, hop, host and path); nested levels, a handler that throws, and termination (the
 * reply set ends, nothing stays parked, no hop in flight). Sub-chains are composed with their parents
 * (the default) or return to their creators: handlers work the same either way, and a parent's
 * chaining function that fails where a composed sub-chain ended is a failure of the parent's level.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SubChainFailureTest {
    static final ChainingFunctionSource PARENT =
            ChainingFunctionSource.javaResource(SubChainFailureTest.class, "/chains/NestParent.java");
    static final ChainingFunctionSource SUB =
            ChainingFunctionSource.javaResource(SubChainFailureTest.class, "/chains/NestSub.java");
    static final ChainingFunctionSource THROWING =
            ChainingFunctionSource.javaResource(SubChainFailureTest.class, "/chains/ThrowingSub.java");
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
     * "saved(host#hop)"), {@code retry} (recovers with the sub-chain {@code g("")} at d), {@code throw};
     * options after the mode, each after a comma: {@code returned} (composition off: the result comes
     * back here), {@code throwing} (the sub-chain's chaining function is {@link #THROWING}, which fails
     * wherever the sub-chain's first hop's result reaches it), {@code nocf} (no chaining function: the
     * sub-chain ends at its first hop). Sub-chains are composed by default.
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
        List<String> options = List.of(head.substring(head.indexOf(':') + 1).split(","));
        String mode = options.getFirst();
        String me = ctx.node();
        SubChain sub = SubChain.to(server, "g").params(rest)
                .chainingFunction(options.contains("throwing") ? THROWING
                        : options.contains("nocf") ? ChainingFunctionSource.NONE : SUB).state(ChainState.of("at", me))
                .composition(!options.contains("returned"));
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

    @ParameterizedTest(name = "interactive={0}, sub-chain {1}")
    @CsvSource({"false, recover", "true, recover", "false, 'recover,returned'", "true, 'recover,returned'"})
    void aHandlerThatRecoversGivesTheParentItsResultAndTheChainGoesOn(boolean interactive, String mode) {
        ChainResult r = client.runChain(chain("b:" + mode + "/!").interactive(interactive));
        // b failed at hop 2; a's handler recovered with "saved(b#2)", the result of a's service function:
        // the parked parent function (not the sub-chain's) runs with it and tags it at d
        assertEquals("saved(b#2)+d", r.value());
        assertEquals(List.of("a", "b", "d"), r.path());
        assertEquals(List.of("a:b#2:java.lang.IllegalStateException"), handled);
        assertEquals(List.of("g@a#1", "g@b#2"), r.replies().stream().sorted().toList());
        assertFinished();
    }

    @ParameterizedTest(name = "interactive={0}, outer {1}, inner {2}")
    @CsvSource({"false, pass, none", "true, pass, none", "false, 'pass,returned', 'none,returned'",
        "false, pass, 'none,returned'", "false, 'pass,returned', none"})
    void aHandlerThatPassesOnLetsTheOriginatorSeeTheOriginalTypedFailure(boolean interactive, String outer,
                                                                        String inner) {
        ServiceFunctionException e = assertThrows(ServiceFunctionException.class,
                () -> client.runChain(chain("b:" + outer + "/c:" + inner + "/!").interactive(interactive)));
        assertEquals("c", e.host());
        assertEquals(3, e.hop(), e::getMessage);
        assertEquals(List.of("a", "b", "c"), e.path());
        assertEquals("java.lang.IllegalStateException", e.exceptionName());
        assertTrue(e.remoteMessage().contains("boom at c"), e.remoteMessage());
        assertEquals(List.of("a:c#3:java.lang.IllegalStateException"), handled, "a's handler saw it, typed, first");
        List<String> details = e.failure().details();
        // composed without a handler, b parked nothing and passes the failure on from the stack alone
        String atB = inner.contains("returned") ? "passed on by hop 2 ('g' at 'b'), which started the sub-chain"
                : "passed on by 'b', which started the sub-chain (composed";
        assertTrue(details.get(details.size() - 2).contains(atB), details::toString);
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

    @ParameterizedTest(name = "outer {0}, inner {1}")
    @CsvSource({"none, recover", "none, 'recover,returned'", "'none,returned', recover",
        "'none,returned', 'recover,returned'"})
    void aMiddleCreatorThatRecoversGoesOnWithItsOwnChainingFunctionAndState(String outer, String inner) {
        // a starts b's sub-chain (chaining function SUB, state at=a); b starts c's, which fails, and
        // recovers: b's hop goes on with its own function and state (SUB, at=a: tag at a, the end of
        // a's sub-chain), then a's (PARENT, tagAt=d)
        ChainResult r = client.runChain(chain("b:" + outer + "/c:" + inner + "/!"));
        assertEquals("saved(c#3)+a+d", r.value());
        assertEquals(List.of("a", "b", "c", "a", "d"), r.path());
        assertEquals(List.of("b:c#3:java.lang.IllegalStateException"), handled);
        assertEquals(List.of("g@a#1", "g@b#2", "g@c#3"), r.replies().stream().sorted().toList());
        assertFinished();
    }

    @Test
    void aComposedSubChainWithAHandlerThatSucceedsFreesItsCreatorsEntryWhereItEnds() {
        // a's sub-chain ends at a (b's result tagged there): a forgets the hop it parked for the handler
        assertEquals("leaf+a+d", client.runChain(chain("b:recover/")).value());
        assertEquals(0, parked(), "popped at its creator, which forgot the entry at once");
        // a's sub-chain ends at b (no chaining function): a keeps the entry until the deadline plus 5 s
        assertEquals("leaf+d", client.runChain(chain("b:recover,nocf/").timeout(Duration.ofSeconds(1))).value());
        assertEquals(1, servers.get("a").parkedChains(), "a holds its handler's entry after the chain ended");
        assertEquals(List.of(), handled);
        assertFinished(); // it expires
    }

    @ParameterizedTest(name = "inner sub-chain {0}")
    @ValueSource(strings = {"none", "none,returned"})
    void aParentFunctionThatFailsWhereTheInnerSubChainEndedGoesToTheOuterCreator(String inner) {
        // a starts b's sub-chain (chaining function THROWING, handler recover); b starts c's (composed or
        // returned, no handler), tagged back at b (hop 4). Where that inner sub-chain ends, b's hop's
        // function (THROWING) resumes and fails: a failure of a's sub-chain, which a's handler recovers
        ChainResult r = client.runChain(chain("b:recover,throwing/c:" + inner + "/"));
        assertEquals("saved(b#4)+d", r.value());
        assertEquals(List.of("a", "b", "c", "b", "d"), r.path());
        assertEquals(1, handled.size(), handled::toString);
        assertTrue(handled.getFirst().startsWith("a:b#4:"), handled::toString);
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
