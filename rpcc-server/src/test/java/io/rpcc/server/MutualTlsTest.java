package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.pkitesting.X509Bundle;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.HopUnreachableException;
import io.rpcc.core.NodeTls;
import io.rpcc.core.PeerAuthenticationException;
import io.rpcc.core.Refusal;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.testing.RawPeer;
import io.rpcc.core.testing.TestPki;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Mutual TLS between nodes: chains and multi-return chains run over it, and a node refuses peers
 * that are not who they claim, with a typed error naming the node at the originator, and goes on
 * serving afterwards.
 */
class MutualTlsTest {
    static final StaticRoute S1_THEN_S2 = StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop("s2", "who"));
    static final TestPki OTHER_CA = TestPki.create("some other CA");

    static Cluster cluster;
    static RpccServer s1;
    static RpccClient client;
    static final List<AutoCloseable> extra = new ArrayList<>();

    @BeforeAll
    static void start() {
        cluster = new Cluster(Cluster.Security.MUTUAL_TLS);
        s1 = cluster.server("s1", b -> b.service("echo", p -> p).service("count", p -> {
            for (int i = 0; i < (Integer) p; i++) {
                ChainContext.current().preturn("r" + i);
            }
            return "counted " + p;
        }));
        cluster.server("s2", b -> b.service("who", p -> "real s2 got " + p));
        cluster.server("s3", b -> b.service("who", p -> "s3 got " + p));
        client = cluster.client();
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable c : extra) {
            c.close();
        }
        cluster.close();
    }

    @AfterEach
    void s1StillServesAChain() {
        ChainResult r = client.runChain(ChainCall.along(S1_THEN_S2, "after"));
        assertEquals("real s2 got after", r.value());
        assertEquals(List.of("s1", "s2"), r.path());
    }

    /** A server outside the cluster's resolver with the given TLS identity, registered as {@code name}. */
    private static RpccServer rogue(String name, NodeTls tls) {
        RpccServer s = RpccServer.builder(name).resolver(cluster.names).tls(tls).service("who", p -> name + " got " + p)
                .build().start();
        extra.add(s);
        cluster.names.register(name, s.address());
        return s;
    }

    private static <T extends ChainException> T fails(Class<T> type, Supplier<Object> chain) {
        ChainException e = assertThrows(ChainException.class, chain::get);
        System.out.println(type.getSimpleName() + ": " + e.getMessage());
        return assertInstanceOf(type, e, () -> "expected " + type.getSimpleName() + " but got " + e);
    }

    private static Object s1Then(String server) {
        return client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("s1", "echo"), StaticRoute.hop(server, "who")),
                "p")).value();
    }

    /** Waits (up to 5 s) for {@code node}'s count of {@code refusal} to exceed {@code before}. */
    private static long refusedAfter(RpccServer node, Refusal refusal, long before) throws InterruptedException {
        for (int i = 0; i < 250 && node.stats().refused(refusal) <= before; i++) {
            Thread.sleep(20);
        }
        return node.stats().refused(refusal);
    }

    @Test
    void providerIsReported() {
        NodeTls.Provider p = NodeTls.provider();
        System.out.println("TLS provider: " + p);
        assertEquals(io.netty.handler.ssl.OpenSsl.isAvailable() ? NodeTls.Provider.OPENSSL : NodeTls.Provider.JDK, p);
    }

    @Test
    void chainsAndRepliesRunOverMutualTls() {
        ReplySet<String> replies = client.callWithReplies("s1", "count", 4, String.class);
        List<String> got = new ArrayList<>();
        while (replies.hasMore()) {
            got.add(replies.next());
        }
        assertEquals(List.of("r0", "r1", "r2", "r3"), got);
        assertEquals("counted 4", replies.result().join().value());
        assertEquals("s3 got p", s1Then("s3"));
    }

    @Test
    void aNodeWithACertificateForAnotherNameDoesNotStart() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> RpccServer.builder("s6").tls(TestPki.shared().node("someone-else")).build());
        assertTrue(e.getMessage().contains("'s6'") && e.getMessage().contains("URI:rpcc:s6")
                && e.getMessage().contains("someone-else"), e.getMessage());
    }

    @Test
    void aPeerClaimingANameItsCertificateDoesNotCarryIsRefused() throws Exception {
        long before = s1.stats().refused(Refusal.IMPERSONATION);
        X509Bundle mallory = TestPki.shared().bundle("mallory", b -> b);
        SSLContext ctx = SSLContext.getInstance("TLS");
        KeyManagerFactory kmf = mallory.toKeyManagerFactory();
        ctx.init(kmf.getKeyManagers(), TestPki.shared().ca().toTrustManagerFactory().getTrustManagers(), null);
        InetSocketAddress a1 = cluster.names.resolve("s1").orElseThrow();
        SSLSocket socket = (SSLSocket) ctx.getSocketFactory().createSocket(a1.getAddress(), a1.getPort());
        try (RawPeer impostor = new RawPeer(socket)) {
            socket.startHandshake();
            impostor.hello("s2", "127.0.0.1", a1.getPort() + 1);
            assertEquals("closed", impostor.nextFrame(5000), "s1 must close the connection, not answer the HELLO");
        }
        assertEquals(before + 1, refusedAfter(s1, Refusal.IMPERSONATION, before));
    }

    @Test
    void aNodeAtTheAddressOfANameWithACertificateForAnotherIsRefused() {
        InetSocketAddress s3 = cluster.names.resolve("s3").orElseThrow();
        cluster.names.register("s2-moved", s3); // the resolver points s2-moved at s3
        long before = s1.stats().refused(Refusal.IMPERSONATION);
        PeerAuthenticationException e = fails(PeerAuthenticationException.class, () -> s1Then("s2-moved"));
        assertEquals("s1", e.host());
        assertEquals(1, e.hop());
        assertTrue(e.remoteMessage().contains("'s2-moved'") && e.remoteMessage().contains(s3.toString().replace("localhost", ""))
                && e.remoteMessage().contains("node names: s3"), e.remoteMessage());
        assertEquals(before + 1, s1.stats().refused(Refusal.IMPERSONATION));
    }

    @Test
    void aServerWithACertificateFromAnUntrustedCaIsRefused() throws Exception {
        rogue("s4", OTHER_CA.node("s4"));
        long before = s1.stats().refused(Refusal.TLS_HANDSHAKE);
        PeerAuthenticationException e = fails(PeerAuthenticationException.class, () -> s1Then("s4"));
        assertEquals("s1", e.host());
        String m = e.remoteMessage();
        assertTrue(m.contains("'s4'") && m.contains(cluster.names.resolve("s4").orElseThrow().toString())
                && m.contains("not signed by a CA this node trusts") && m.contains("some other CA"), m);
        assertEquals(before + 1, refusedAfter(s1, Refusal.TLS_HANDSHAKE, before));
    }

    @Test
    void aServerWithAnExpiredCertificateIsRefused() {
        Instant now = Instant.now();
        rogue("s5", TestPki.shared().issue("s5", b -> b.notBefore(now.minus(Duration.ofDays(10)))
                .notAfter(now.minus(Duration.ofDays(1)))));
        PeerAuthenticationException e = fails(PeerAuthenticationException.class, () -> s1Then("s5"));
        assertTrue(e.remoteMessage().contains("'s5'") && e.remoteMessage().contains("has expired")
                && e.remoteMessage().contains("renew it"), e.remoteMessage());
    }

    @Test
    void aClientWithAnUntrustedCertificateGetsATypedErrorNamingTheServer() throws Exception {
        X509Bundle foreign = OTHER_CA.bundle("stranger", b -> b); // trusts the cluster's CA, but s1 does not trust its CA
        NodeTls tls = NodeTls.of(foreign.getKeyPair().getPrivate(), foreign.getCertificatePathList(),
                List.of(TestPki.shared().ca().getCertificate()));
        RpccClient stranger = cluster.client(b -> b.name("stranger").tls(tls));
        long before = s1.stats().refused(Refusal.TLS_HANDSHAKE);
        PeerAuthenticationException e = fails(PeerAuthenticationException.class,
                () -> stranger.runChain(ChainCall.to("s1", "echo").params("x")));
        assertTrue(e.remoteMessage().contains("'s1'") && e.remoteMessage().contains("refused this node's certificate"),
                e.remoteMessage());
        assertEquals(before + 1, refusedAfter(s1, Refusal.TLS_HANDSHAKE, before));
    }

    @Test
    void aClientThatDoesNotTrustTheServersCaGetsATypedErrorNamingTheServer() throws Exception {
        RpccClient wary = cluster.client(b -> b.name("wary").tls(OTHER_CA.node("wary")));
        PeerAuthenticationException e = fails(PeerAuthenticationException.class,
                () -> wary.runChain(ChainCall.to("s1", "echo").params("x")));
        assertTrue(e.remoteMessage().contains("'s1'") && e.remoteMessage().contains("not signed by a CA this node trusts"),
                e.remoteMessage());
    }

    @Test
    void aPlaintextClientIsRefused() throws Exception {
        RpccClient plain = RpccClient.builder().name("plain").resolver(cluster.names).timeout(Duration.ofSeconds(10))
                .connectTimeout(Duration.ofSeconds(2)).build().start();
        extra.add(plain);
        long before = s1.stats().refused(Refusal.TLS_HANDSHAKE);
        HopUnreachableException e = fails(HopUnreachableException.class,
                () -> plain.runChain(ChainCall.to("s1", "echo").params("x")));
        assertTrue(e.remoteMessage().contains("'s1'"), e.remoteMessage());
        assertEquals(before + 1, refusedAfter(s1, Refusal.TLS_HANDSHAKE, before));
    }
}
