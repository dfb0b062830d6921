package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainCaller;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.DeadlineExceededException;
import io.rpcc.core.IsolationLevel;
import io.rpcc.core.PermissionDeniedException;
import io.rpcc.core.Refusal;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.SubChain;
import io.rpcc.core.internal.chain.BuilderAccess;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.chain.RequestHandler;
import io.rpcc.core.internal.transport.ChainCredentials;
import io.rpcc.core.internal.wire.CancelFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainIdentity;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.ReturnPoint;
import io.rpcc.core.internal.wire.WindowUpdateFrame;
import io.rpcc.core.runtime.NodeBuilder;
import io.rpcc.core.testing.TestPki;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Chain credentials between mutually authenticated nodes: every hop knows, verified, who started the
 * chain; a node cannot name another node as a chain's originator, nor widen the hop limit or replay
 * the originator's credential, nor make the chain live past the deadline its originator signed (a
 * claim of more is cut back to it, not refused: a request that waited on the way claims more too);
 * a server's chain policy refuses a service function to an originator it does not allow, with a
 * typed error naming the hop, and goes on serving.
 */
class ChainCredentialsTest {
    static Cluster cluster;
    static RpccServer s1;
    static RpccServer s2;
    static RpccServer s3;
    static RpccClient client;
    static Node evil;
    /** What the relay at {@code evil} does to the requests it gets before sending them to s1. */
    static volatile UnaryOperator<ChainHeader> tamper = h -> h;
    /** How long the relay at {@code evil} holds a request before it sends it on, its budget unchanged. */
    static volatile long holdMillis;
    /** The service function at s1 the relay sends requests to. */
    static volatile String relayTo = "echo";
    /** Requests the relay has sent on. */
    static final AtomicInteger relayed = new AtomicInteger();
    static final Map<String, Instant> deadlines = new ConcurrentHashMap<>();
    static final Map<String, ChainCaller> seen = new ConcurrentHashMap<>();
    static final Map<String, IsolationLevel> isolation = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() {
        cluster = new Cluster(Cluster.Security.MUTUAL_TLS);
        s1 = cluster.server("s1", b -> b.service("echo", p -> record("s1", p))
                .service("sub", p -> SubChain.to("s2", "who").params(p))
                .service("nested", p -> SubChain.to("s2", "sub2").params(p).composition(false))
                .service("subViaEvil", p -> SubChain.to("evil", "relay").params(p)));
        s2 = cluster.server("s2", b -> b.service("who", p -> record("s2", p))
                .service("sub2", p -> SubChain.to("s3", "last").params(p)));
        s3 = cluster.server("s3", b -> b.service("last", p -> record("s3", p))
                .service("secret", p -> "the secret")
                .policy((service, caller) -> service.equals("secret") && !caller.originator().equals("admin")
                        ? ChainPolicy.Decision.deny("only 'admin' may read the secret")
                        : ChainPolicy.ALLOW_ALL.decide(service, caller)));
        client = cluster.client();
        evil = new Node(BuilderAccess.settingsOf(new EvilBuilder().resolver(cluster.names)
                .tls(TestPki.shared().node("evil"))));
        cluster.names.register("evil", evil.start(new Relay()));
    }

    @AfterAll
    static void stop() throws Exception {
        evil.close();
        cluster.close();
    }

    @AfterEach
    void serversStillServe() {
        tamper = h -> h;
        holdMillis = 0;
        relayTo = "echo";
        assertEquals("s3 got after", client.runChain(ChainCall.to("s3", "last").params("after")).value());
    }

    private static Object record(String server, Object params) {
        ChainContext ctx = ChainContext.current();
        seen.put(server + ":" + params, ctx.caller());
        isolation.put(server + ":" + params, ctx.isolation());
        deadlines.put(server + ":" + params, ctx.deadline());
        return server + " got " + params;
    }

    @Test
    void everyHopSeesTheVerifiedOriginator() {
        StaticRoute route = StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop("s2", "who"),
                StaticRoute.hop("s3", "last"));
        assertEquals("s3 got s2 got s1 got x", client.runChain(ChainCall.along(route, "x")).value());
        assertEquals(new ChainCaller(client.name(), true, "node:" + client.name(), null), seen.get("s1:x"));
        assertEquals(new ChainCaller(client.name(), true, "node:s1", null), seen.get("s2:s1 got x"));
        assertEquals(new ChainCaller(client.name(), true, "node:s2", null), seen.get("s3:s2 got s1 got x"));
        assertEquals(IsolationLevel.IN_PROCESS, isolation.get("s3:s2 got s1 got x"));
    }

    @Test
    void aSubChainCarriesItsCreatorAndItsOriginator() {
        assertEquals("s2 got y", client.runChain(ChainCall.to("s1", "sub").params("y")).value());
        ChainCaller atS2 = seen.get("s2:y");
        assertEquals(client.name(), atS2.originator());
        assertTrue(atS2.originatorVerified());
        assertEquals("s1", atS2.subChainCreator());
        assertEquals("node:s1", atS2.previousHop());
    }

    @Test
    void nestedSubChainsCarryTheirInnermostCreator() {
        // s1 starts a sub-chain (returning to s1) at s2, which starts one (composed) at s3
        assertEquals("s3 got n", client.runChain(ChainCall.to("s1", "nested").params("n")).value());
        ChainCaller atS3 = seen.get("s3:n");
        assertEquals(new ChainCaller(client.name(), true, "node:s2", "s2"), atS3);
    }

    @Test
    void inPlaintextTheOriginatorIsAClaimAndItsHopsRunIsolated() throws Exception {
        Map<String, ChainCaller> got = new ConcurrentHashMap<>();
        Map<String, IsolationLevel> level = new ConcurrentHashMap<>();
        try (Cluster plain = new Cluster()) {
            plain.server("p1", b -> b.service("who", p -> {
                got.put("p1", ChainContext.current().caller());
                level.put("p1", ChainContext.current().isolation());
                return p;
            }));
            RpccClient c = plain.client();
            assertEquals("x", c.runChain(ChainCall.to("p1", "who").params("x")).value());
            assertEquals(new ChainCaller(c.name(), false, "address:127.0.0.1", null), got.get("p1"));
            assertEquals(IsolationLevel.ISOLATED, level.get("p1"), "the default policy isolates unverified originators");
        }
    }

    @Test
    void aServiceTheOriginatorMayNotCallIsRefusedNamingTheHop() {
        long before = s3.stats().refused(Refusal.POLICY_DENIED);
        PermissionDeniedException e = fails(() -> client.runChain(ChainCall.to("s3", "secret")));
        assertEquals("s3", e.host());
        assertEquals(1, e.hop());
        assertTrue(e.getMessage().contains("'secret'") && e.getMessage().contains("only 'admin' may read the secret"),
                e.getMessage());
        assertEquals(before + 1, s3.stats().refused(Refusal.POLICY_DENIED));
        // through a chain too: the refusal names the hop where it happened
        PermissionDeniedException deep = fails(() -> client.runChain(ChainCall.along(
                StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop("s3", "secret")), "z")));
        assertEquals("s3", deep.host());
        assertEquals(2, deep.hop());
    }

    @Test
    void aNodeCannotNameAnotherNodeAsOriginator() throws Exception {
        // evil gets the client's chain and passes it on without the client's credential, naming the client
        tamper = h -> new ChainHeader(new ChainIdentity(h.chainId(), h.secret(), h.originator(), h.attempt()),
                h.soFar(), h.serviceFunction(), h.chainingFunction(), h.credit(), h.route(), h.limits());
        refusedAtS1(ChainCall.to("evil", "relay"), "carries no credential");
    }

    @Test
    void aWidenedHopLimitIsRefused() throws Exception {
        tamper = h -> new ChainHeader(h.chain(), h.soFar(), h.serviceFunction(), h.chainingFunction(), h.credit(),
                h.route(), new ChainLimits(h.maxHops() + 50, h.budgetNanos(), h.heartbeat()));
        refusedAtS1(ChainCall.to("evil", "relay").maxHops(5), "hop limit was widened");
    }

    @Test
    void aWidenedDeadlineGainsNothing() {
        // evil claims an hour more than the client's 20 s: the hop at s1, and the sub-chain it starts at s2,
        // run under the deadline the client signed (plus the clock skew allowed), and are not refused
        tamper = h -> h.withBudget(h.budgetNanos() + Duration.ofHours(1).toNanos());
        relayTo = "sub";
        runsWithinTheSignedDeadline("wide", "s2");
    }

    @Test
    void noDeadlineClaimedAgainstASignedOneGainsNothing() {
        tamper = h -> h.withBudget(ChainHeader.NO_DEADLINE);
        runsWithinTheSignedDeadline("none", "s1");
    }

    @Test
    void aRequestHeldLongerThanTheClockSkewOnTheWayStillRuns() {
        // the relay holds the request 6 s and sends it on with the budget it arrived with: at s1 it claims
        // ~6 s more than the signed deadline leaves, beyond the 5 s of skew (once refused as "widened")
        holdMillis = ChainCredentials.DEFAULT_CLOCK_SKEW.toMillis() + 1_000;
        relayTo = "sub";
        runsWithinTheSignedDeadline("held", "s2");
    }

    @Test
    void aRequestThatArrivesPastTheSignedDeadlineEndsByTheDeadlineNotARefusal() throws Exception {
        // held past the signed deadline and the skew, and claiming an hour more: s1 does not run it and does
        // not count it forged; the client's chain ends with its deadline error
        long before = s1.stats().refused(Refusal.FORGED_ORIGINATOR);
        int sent = relayed.get();
        holdMillis = ChainCredentials.DEFAULT_CLOCK_SKEW.toMillis() + 2_000;
        tamper = h -> h.withBudget(h.budgetNanos() + Duration.ofHours(1).toNanos());
        ChainException e = assertThrows(ChainException.class, () -> client.runChain(ChainCall.to("evil", "relay")
                .params("late").deadline(Duration.ofSeconds(1))));
        assertInstanceOf(DeadlineExceededException.class, e, e.getMessage());
        for (int i = 0; i < 500 && relayed.get() == sent; i++) {
            Thread.sleep(20);
        }
        assertEquals(sent + 1, relayed.get(), "the relay sent the held request on");
        Thread.sleep(500); // (s1 takes it up: a refusal would be counted as it is admitted)
        assertEquals(before, s1.stats().refused(Refusal.FORGED_ORIGINATOR));
        assertEquals(null, seen.get("s1:late"), "the hop did not run past its signed deadline");
    }

    @Test
    void aCredentialForAnotherFirstHopIsRefused() throws Exception {
        // sent as the chain's first hop again, but to another server and service than the client signed
        tamper = h -> h.onward(new ChainSoFar(1, List.of(), h.console(), h.timings(), h.metadata()), "echo",
                ChainingFunctionSource.NONE, h.credit(), h.budgetNanos());
        refusedAtS1(ChainCall.to("evil", "relay"), "signed for a first hop to 'relay' at 'evil'");
    }

    @Test
    void aCredentialReplayedOnAnotherChainIsRefused() throws Exception {
        long before = s1.stats().refused(Refusal.FORGED_ORIGINATOR);
        tamper = h -> {
            // the copy on another chain id is refused (its refusal goes to the client, which knows no such chain);
            // the chain itself goes on
            ChainHeader replay = new ChainHeader(new ChainIdentity(h.chainId() + 1_000_000, h.secret(), h.originator(),
                    h.attempt(), h.credential()), h.soFar(), h.serviceFunction(), h.chainingFunction(), h.credit(),
                    h.route(), h.limits());
            evil.forward("s1", new ChainRequest(replay, "replayed", io.rpcc.core.ChainState.empty(), null));
            return h;
        };
        assertEquals("s1 got r", client.runChain(ChainCall.to("evil", "relay").params("r")).value());
        for (int i = 0; i < 250 && s1.stats().refused(Refusal.FORGED_ORIGINATOR) <= before; i++) {
            Thread.sleep(20);
        }
        assertEquals(before + 1, s1.stats().refused(Refusal.FORGED_ORIGINATOR));
        assertEquals(null, seen.get("s1:replayed"));
    }

    @Test
    void aForgedSubChainCreatorIsRefused() throws Exception {
        long before = s1.stats().refused(Refusal.FORGED_ORIGINATOR);
        // evil runs a hop of s1's sub-chain and names s3 as the sub-chain's creator, keeping s1's credential
        tamper = h -> {
            List<ReturnPoint> stack = new ArrayList<>(h.returnStack());
            ReturnPoint p = stack.remove(stack.size() - 1);
            stack.add(new ReturnPoint(new NodeAddress("s3", p.node().host(), p.node().port()), p.continuation(),
                    p.repliesToCreator(), p.chainingFunction(), p.state(), 0, p.creatorCredential()));
            return h.with(h.chainingFunction(), stack);
        };
        // the refusal goes where the forged return point says: the client's chain ends by its timeout
        assertThrows(ChainException.class, () -> client.runChain(ChainCall.to("s1", "subViaEvil").params("q")
                .timeout(Duration.ofSeconds(2))));
        for (int i = 0; i < 250 && s1.stats().refused(Refusal.FORGED_ORIGINATOR) <= before; i++) {
            Thread.sleep(20);
        }
        assertEquals(before + 1, s1.stats().refused(Refusal.FORGED_ORIGINATOR));
        assertEquals(null, seen.get("s1:q"));
    }

    /**
     * Runs a chain with a 20 s deadline and {@code params} through the relay at evil: s1 does not refuse
     * it as forged, it ends with the value of the hop at {@code last}, and that hop ran under a deadline
     * no later than the client signed plus the clock skew (give or take a clock tick).
     */
    private static void runsWithinTheSignedDeadline(String params, String last) {
        long before = s1.stats().refused(Refusal.FORGED_ORIGINATOR);
        Instant latest = Instant.now().plus(Duration.ofSeconds(20)).plus(ChainCredentials.DEFAULT_CLOCK_SKEW);
        Object value = client.runChain(ChainCall.to("evil", "relay").params(params).deadline(Duration.ofSeconds(20)))
                .value();
        assertEquals(last + " got " + params, value);
        assertEquals(before, s1.stats().refused(Refusal.FORGED_ORIGINATOR));
        Instant deadline = deadlines.get(last + ":" + params);
        assertTrue(deadline != null && !deadline.isAfter(latest.plusMillis(50)),
                "the hop's deadline " + deadline + " is later than the signed one allows, " + latest);
    }

    private static void refusedAtS1(ChainCall call, String why) {
        long before = s1.stats().refused(Refusal.FORGED_ORIGINATOR);
        PermissionDeniedException e = fails(() -> client.runChain(call.params("p")));
        assertEquals("s1", e.host());
        assertTrue(e.getMessage().contains(why), e.getMessage());
        assertTrue(e.getMessage().contains("node:evil"), e.getMessage());
        assertEquals(before + 1, s1.stats().refused(Refusal.FORGED_ORIGINATOR));
    }

    private static PermissionDeniedException fails(org.junit.jupiter.api.function.Executable chain) {
        ChainException e = assertThrows(ChainException.class, chain);
        System.out.println("refused: " + e.getMessage());
        return assertInstanceOf(PermissionDeniedException.class, e);
    }

    private static final class EvilBuilder extends NodeBuilder<EvilBuilder> {
        EvilBuilder() {
            super("evil");
        }
    }

    /**
     * evil's server side: every request it gets goes on to s1's {@link #relayTo} as hop 2, changed by
     * {@link #tamper}, after {@link #holdMillis}.
     */
    private static final class Relay implements RequestHandler {
        @Override
        public void onRequest(ChainRequest request, long arrivedNanos) {
            ChainHeader h = request.header();
            ChainHeader next = h.onward(new ChainSoFar(h.hop() + 1, List.of("evil"), h.console(), h.timings(),
                    h.metadata()), relayTo, ChainingFunctionSource.NONE, h.credit(), h.budgetNanos());
            ChainRequest onward = new ChainRequest(tamper.apply(next), request.params(), request.state(), null);
            long hold = holdMillis;
            CompletableFuture.delayedExecutor(hold, TimeUnit.MILLISECONDS).execute(() -> {
                evil.forward("s1", onward);
                relayed.incrementAndGet();
            });
        }

        @Override
        public void refuse(ChainHeader h, HopFailure why) {
        }

        @Override
        public boolean grant(WindowUpdateFrame grant) {
            return false;
        }

        @Override
        public boolean cancel(CancelFrame cancel) {
            return false;
        }

        @Override
        public int hopsInFlight() {
            return 0;
        }

        @Override
        public CompletableFuture<Void> abandonHops() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public boolean relay(Object frame, Channel from) {
            return false;
        }
    }
}
