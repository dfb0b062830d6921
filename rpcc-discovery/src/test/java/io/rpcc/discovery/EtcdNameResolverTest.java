package io.rpcc.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.server.RpccServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Names resolved through a real etcd: servers register themselves under leases; a chain reaches
 * the primary endpoint of a name; when the primary is closed and its entry revoked, the next chain
 * reaches the backup; a crashed node's entry (renewals stopped) lapses after its TTL; with etcd
 * gone, names keep their last known endpoints.
 */
class EtcdNameResolverTest {
    static final String PREFIX = "/rpcc/nodes/";
    static final ChainingFunctionSource TO_S2 = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            public class ToS2 implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    return NextHop.callThenEnd("s2", "where", result);
                }
            }
            """);

    private EtcdServer etcd;
    private EtcdNameResolver names;
    private final List<AutoCloseable> closeLast = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        etcd = EtcdServer.start();
        names = new EtcdNameResolver(etcd.client(), PREFIX, Duration.ofMillis(200));
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closeLast.reversed()) {
            c.close();
        }
        etcd.close();
    }

    private RpccServer server(String name, String tag) {
        RpccServer s = RpccServer.builder(name).resolver(names)
                .service("step", p -> p).service("where", p -> p + "@" + tag).build().start();
        closeLast.add(s);
        return s;
    }

    private EtcdRegistration register(String name, String id, InetSocketAddress address, Duration ttl) throws Exception {
        EtcdRegistration r = EtcdRegistration.register(etcd.client(), PREFIX, name, id, address, ttl);
        closeLast.add(r);
        return r;
    }

    private RpccClient client() {
        RpccClient c = RpccClient.builder().name("client").resolver(names).timeout(Duration.ofSeconds(20)).build().start();
        closeLast.add(c);
        return c;
    }

    private static Object chain(RpccClient client, String params) {
        return client.runChain(ChainCall.to("s1", "step").params(params).chainingFunction(TO_S2)).value();
    }

    @Test
    void aChainReachesThePrimaryAndFailsOverToTheBackupWhenThePrimaryLeaves() throws Exception {
        RpccServer s1 = server("s1", "s1");
        RpccServer primary = server("s2", "primary");
        RpccServer backup = server("s2", "backup");
        register("s1", "a", s1.address(), Duration.ofSeconds(10));
        EtcdRegistration primaryEntry = register("s2", "a", primary.address(), Duration.ofSeconds(10));
        register("s2", "b", backup.address(), Duration.ofSeconds(10));
        assertEquals(List.of(primary.address().getPort(), backup.address().getPort()),
                names.resolveAll("s2").stream().map(InetSocketAddress::getPort).toList(), "primary first (key order)");
        RpccClient client = client();
        assertEquals("x@primary", chain(client, "x"));

        PrimaryGone.close(primary, s1); // the primary leaves: before etcd forgets it, s1 fails over to the backup
        assertEquals("y@backup", chain(client, "y"));
        assertTrue(s1.stats().failovers() >= 1, "s1 failed over: " + s1.stats());
        primaryEntry.close(); // then its entry is revoked
        Thread.sleep(300); // (the resolver's 200 ms cache)
        assertEquals(List.of(backup.address().getPort()),
                names.resolveAll("s2").stream().map(InetSocketAddress::getPort).toList());
        long failovers = s1.stats().failovers();
        assertEquals("z@backup", chain(client, "z"));
        assertEquals(failovers, s1.stats().failovers(), "no failover once the dead endpoint is gone from etcd");
    }

    @Test
    void aCrashedNodesEntryLapsesAfterItsTtl() throws Exception {
        RpccServer s2 = server("s2", "s2");
        EtcdRegistration entry = register("s2", "a", s2.address(), Duration.ofSeconds(2));
        Thread.sleep(3000); // renewed meanwhile: still there after longer than its TTL
        assertEquals(1, names.resolveAll("s2").size(), "a live node's lease is renewed");
        entry.abandon(); // the node dies: no more renewals
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!names.resolveAll("s2").isEmpty() && System.nanoTime() < end) {
            Thread.sleep(200);
        }
        assertEquals(List.of(), names.resolveAll("s2"), "etcd deleted the entry once its lease ran out");
    }

    @Test
    void withEtcdGoneNamesKeepTheirLastKnownEndpoints() throws Exception {
        RpccServer s2 = server("s2", "s2");
        register("s2", "a", s2.address(), Duration.ofSeconds(10));
        assertEquals(1, names.resolveAll("s2").size());
        etcd.close();
        Thread.sleep(300);
        assertEquals(List.of(s2.address().getPort()), names.resolveAll("s2").stream().map(InetSocketAddress::getPort)
                .toList(), "the last good answer");
        assertEquals(List.of(), names.resolveAll("never-seen"));
        etcd = EtcdServer.start(); // (for stop())
    }
}
