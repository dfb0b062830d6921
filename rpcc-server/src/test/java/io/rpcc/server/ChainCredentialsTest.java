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
import io.rpcc.core.IsolationLevel;
import io.rpcc.core.PermissionDeniedException;
import io.rpcc.core.Refusal;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.SubChain;
import io.rpcc.core.internal.chain.BuilderAccess;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.chain.RequestHandler;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Chain credentials between mutually authenticated nodes: every hop knows, verified, who started the
 * chain; a node cannot name another node as a chain's originator, nor widen or replay the
 * originator's credential; a server's chain policy refuses a service function to an originator it
 * does not allow, with a typed error naming the hop, and goes on serving.
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
        assertEquals("s3 got after", client.runChain(ChainCall.to("s3", "last").params("after")).value());
    }

    private static Object record(String server, Object params) {
        ChainContext ctx = ChainContext.current();
        seen.put(server + ":" + params, ctx.caller());
        isolation.put(server + ":" + params, ctx.isolation());
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
    void aWidenedDeadlineIsRefused() throws Exception {
        tamper = h -> h.withBudget(h.budgetNanos() + Duration.ofHours(1).toNanos());
        refusedAtS1(ChainCall.to("evil", "relay").deadline(Duration.ofSeconds(20)), "deadline was widened");
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

    /** evil's server side: every request it gets goes on to s1's 'echo' as hop 2, changed by {@link #tamper}. */
    private static final class Relay implements RequestHandler {
        @Override
        public void onRequest(ChainRequest request, long arrivedNanos) {
            ChainHeader h = request.header();
            ChainHeader next = h.onward(new ChainSoFar(h.hop() + 1, List.of("evil"), h.console(), h.timings(),
                    h.metadata()), "echo", ChainingFunctionSource.NONE, h.credit(), h.budgetNanos());
            evil.forward("s1", new ChainRequest(tamper.apply(next), request.params(), request.state(), null));
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
