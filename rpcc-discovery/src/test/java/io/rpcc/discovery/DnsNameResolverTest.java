package io.rpcc.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.server.RpccServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Names resolved through a real DNS server (dnsmasq): A records as a pool, SRV records in priority
 * and weight order with their targets' A and AAAA records, names that do not exist, answers cached
 * for their TTL and refreshed after it, the last good answer kept while DNS is gone, and chains
 * whose servers are found through SRV records failing over from a dead primary to its backup.
 */
class DnsNameResolverTest {
    static final List<String> RECORDS = List.of(
            "host-record=pool.rpcc.test,127.0.0.1",
            "host-record=pool.rpcc.test,127.0.0.2",
            "host-record=a.rpcc.test,127.0.0.1",
            "host-record=b.rpcc.test,127.0.0.2",
            "host-record=c.rpcc.test,127.0.0.3,::1",
            // svc: priority 10 (c heavier than a), then the backup b at priority 20; listed out of order
            "srv-host=_rpcc._tcp.svc.rpcc.test,b.rpcc.test,7002,20,0",
            "srv-host=_rpcc._tcp.svc.rpcc.test,a.rpcc.test,7001,10,10",
            "srv-host=_rpcc._tcp.svc.rpcc.test,c.rpcc.test,7003,10,60",
            "srv-host=_chains._tcp.svc.rpcc.test,b.rpcc.test,7010,0,0",
            // both: SRV records and an address; gone: an SRV record whose target does not exist
            "srv-host=_rpcc._tcp.both.rpcc.test,a.rpcc.test,7009,0,0",
            "host-record=both.rpcc.test,127.0.0.5",
            "srv-host=_rpcc._tcp.gone.rpcc.test,missing.rpcc.test,7004,0,0",
            "host-record=late.rpcc.test,127.0.0.4",
            "host-record=ttl.rpcc.test,127.0.0.1,3");

    private static Dnsmasq dns;
    private final List<AutoCloseable> closeLast = new ArrayList<>();

    @BeforeAll
    static void startDns() throws Exception {
        dns = Dnsmasq.start(RECORDS);
    }

    @AfterAll
    static void stopDns() throws Exception {
        if (dns != null) {
            dns.close();
        }
    }

    @BeforeEach
    void dnsServesTheRecords() throws Exception {
        if (!dns.running() || !dns.records().equals(RECORDS)) {
            dns.restart(RECORDS);
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closeLast.reversed()) {
            c.close();
        }
    }

    private DnsNameResolver resolver(UnaryOperator<DnsNameResolver.Builder> config) {
        DnsNameResolver r = config.apply(DnsNameResolver.builder().server(dns.address()).domain("rpcc.test")).build();
        closeLast.add(r);
        return r;
    }

    private static InetSocketAddress at(String host, int port) {
        return new InetSocketAddress(host, port);
    }

    @Test
    void everyAddressOfANameIsAnEndpointOfThePool() {
        DnsNameResolver names = resolver(b -> b.lookup(DnsNameResolver.Lookup.ADDRESS).port(7000));
        List<InetSocketAddress> pool = names.resolveAll("pool");
        assertEquals(Set.of(at("127.0.0.1", 7000), at("127.0.0.2", 7000)), Set.copyOf(pool), "the pool: " + pool);
        assertEquals(2, pool.size());
        assertEquals(Optional.of(pool.getFirst()), names.resolve("pool"));
        // by default SRV is asked first; pool has no SRV records, so its addresses are its endpoints
        assertEquals(Set.copyOf(pool), Set.copyOf(resolver(b -> b.port(7000)).resolveAll("pool")));
        assertEquals(List.of(), resolver(b -> b.lookup(DnsNameResolver.Lookup.SRV)).resolveAll("pool"));
    }

    @Test
    void srvRecordsGiveThePrimaryThenTheBackupsAtTheirTargetsAddresses() {
        DnsNameResolver names = resolver(b -> b.lookup(DnsNameResolver.Lookup.SRV));
        assertEquals(List.of(at("127.0.0.3", 7003), at("::1", 7003), at("127.0.0.1", 7001), at("127.0.0.2", 7002)),
                names.resolveAll("svc"), "priority 10 (heavier first: c, A then AAAA, then a), then priority 20 (b)");
        assertEquals(Optional.of(at("127.0.0.3", 7003)), names.resolve("svc"));
        assertEquals(List.of(at("127.0.0.3", 7003), at("127.0.0.1", 7001), at("127.0.0.2", 7002)),
                resolver(b -> b.lookup(DnsNameResolver.Lookup.SRV).ipv6(false)).resolveAll("svc"), "A records only");
        assertEquals(List.of(at("127.0.0.2", 7010)),
                resolver(b -> b.lookup(DnsNameResolver.Lookup.SRV).srvName("_chains._tcp.{name}")).resolveAll("svc"));
        assertEquals(List.of(), names.resolveAll("gone"), "an SRV target that does not exist is skipped");
    }

    @Test
    void srvRecordsWinOverAddressesUnlessOnlyAddressesAreAsked() {
        assertEquals(List.of(at("127.0.0.1", 7009)), resolver(b -> b.port(7000)).resolveAll("both"));
        assertEquals(List.of(at("127.0.0.5", 7000)),
                resolver(b -> b.port(7000).lookup(DnsNameResolver.Lookup.ADDRESS)).resolveAll("both"));
    }

    @Test
    void aNameThatDoesNotExistResolvesToNothing() {
        for (DnsNameResolver.Lookup lookup : DnsNameResolver.Lookup.values()) {
            DnsNameResolver names = resolver(b -> b.port(7000).lookup(lookup));
            assertEquals(List.of(), names.resolveAll("nobody"), lookup.toString());
            assertEquals(Optional.empty(), names.resolve("nobody"), lookup.toString());
            assertEquals(List.of(), names.resolveAll("x".repeat(64)), "no DNS label is that long");
        }
    }

    @Test
    void answersAreCachedForTheirTtlThenRefreshed() throws Exception {
        DnsNameResolver names = resolver(b -> b.port(7000).ttl(Duration.ofMillis(100), Duration.ofMinutes(1)));
        DnsNameResolver clamped = resolver(b -> b.port(7000).ttl(Duration.ofSeconds(20), Duration.ofMinutes(1)));
        long t0 = System.nanoTime();
        assertEquals(List.of(at("127.0.0.1", 7000)), names.resolveAll("ttl"));
        assertEquals(List.of(at("127.0.0.1", 7000)), clamped.resolveAll("ttl"));
        dns.restart(RECORDS.stream().map(r -> r.equals("host-record=ttl.rpcc.test,127.0.0.1,3")
                ? "host-record=ttl.rpcc.test,127.0.0.2,3" : r).toList());
        sleepUntil(t0, Duration.ofMillis(1500)); // past the zone's TTL (1 s), within this record's (3 s)
        List<InetSocketAddress> before = names.resolveAll("ttl");
        long elapsed = System.nanoTime() - t0;
        assertTrue(elapsed < Duration.ofMillis(2900).toNanos(), "the restart took too long to test the 3 s TTL: "
                + Duration.ofNanos(elapsed));
        assertEquals(List.of(at("127.0.0.1", 7000)), before, "within the record's TTL (3 s): the cached answer");
        sleepUntil(t0, Duration.ofMillis(3200));
        assertEquals(List.of(at("127.0.0.2", 7000)), names.resolveAll("ttl"), "after the TTL: the new answer");
        assertEquals(List.of(at("127.0.0.1", 7000)), clamped.resolveAll("ttl"), "a TTL below the minimum is raised to it");
    }

    private static void sleepUntil(long t0, Duration after) throws InterruptedException {
        Thread.sleep(Math.max(0, after.toNanos() - (System.nanoTime() - t0)) / 1_000_000);
    }

    @Test
    void withDnsGoneNamesKeepTheirLastGoodAnswer() throws Exception {
        DnsNameResolver names = resolver(b -> b.port(7000).queryTimeout(Duration.ofMillis(300))
                .retryAfterFailure(Duration.ofMillis(800)));
        List<InetSocketAddress> svc = names.resolveAll("svc");
        assertEquals(4, svc.size());
        dns.stop();
        Thread.sleep(1100); // past the records' TTL (1 s)
        long t0 = System.nanoTime();
        assertEquals(svc, names.resolveAll("svc"), "the last good answer");
        assertTrue(System.nanoTime() - t0 >= Duration.ofMillis(300).toNanos(), "DNS was asked (and timed out)");
        t0 = System.nanoTime();
        assertEquals(svc, names.resolveAll("svc"), "still the last good answer");
        assertTrue(System.nanoTime() - t0 < Duration.ofMillis(250).toNanos(), "not asked again right after a failure");
        assertEquals(List.of(), names.resolveAll("late"), "a name never resolved before");

        dns.restart(RECORDS);
        Thread.sleep(900); // past retryAfterFailure
        assertEquals(List.of(at("127.0.0.4", 7000)), names.resolveAll("late"), "DNS answers again");
        assertEquals(svc, names.resolveAll("svc"));
    }

    @Test
    void aClosedResolverRefusesLookups() {
        DnsNameResolver names = resolver(b -> b.port(7000));
        names.close();
        assertThrows(IllegalStateException.class, () -> names.resolveAll("pool"));
        assertThrows(IllegalStateException.class, () -> DnsNameResolver.builder().build(), "A/AAAA without a port");
    }

    private RpccServer server(String name, String host, String tag, DnsNameResolver names) {
        RpccServer s = RpccServer.builder(name).listen(host, 0).resolver(names)
                .service("step", p -> p).service("where", p -> p + "@" + tag).build().start();
        closeLast.add(s);
        return s;
    }

    private static String srv(String name, String target, InetSocketAddress at, int priority) {
        return "srv-host=_rpcc._tcp." + name + ".rpcc.test," + target + ".rpcc.test," + at.getPort() + "," + priority + ",0";
    }

    private static Object chain(RpccClient client, String params) {
        return client.runChain(ChainCall.to("s1", "step").params(params)
                .chainingFunction(EtcdNameResolverTest.TO_S2)).value();
    }

    @Test
    void aChainFindsItsServersThroughSrvRecordsAndFailsOverToTheBackup() throws Exception {
        DnsNameResolver names = resolver(b -> b.lookup(DnsNameResolver.Lookup.SRV));
        RpccServer s1 = server("s1", "127.0.0.1", "s1", names);
        RpccServer primary = server("s2", "127.0.0.1", "primary", names);
        RpccServer backup = server("s2", "127.0.0.2", "backup", names);
        String primaryRecord = srv("s2", "a", primary.address(), 10);
        List<String> withPrimary = Stream.concat(RECORDS.stream(), Stream.of(srv("s1", "a", s1.address(), 0),
                primaryRecord, srv("s2", "b", backup.address(), 20))).toList();
        dns.restart(withPrimary);
        assertEquals(List.of(at("127.0.0.1", primary.address().getPort()), at("127.0.0.2", backup.address().getPort())),
                names.resolveAll("s2"), "the primary (priority 10), then the backup (20)");
        RpccClient client = RpccClient.builder().name("client").resolver(names).timeout(Duration.ofSeconds(20))
                .build().start();
        closeLast.add(client);
        assertEquals("x@primary", chain(client, "x"));

        PrimaryGone.close(primary, s1); // the primary dies: before DNS drops it, s1 fails over to the backup
        assertEquals("y@backup", chain(client, "y"));
        assertTrue(s1.stats().failovers() >= 1, "s1 failed over: " + s1.stats());

        dns.restart(withPrimary.stream().filter(r -> !r.equals(primaryRecord)).toList());
        Thread.sleep(1100); // past the records' TTL (1 s)
        assertEquals(List.of(at("127.0.0.2", backup.address().getPort())), names.resolveAll("s2"));
        long failovers = s1.stats().failovers();
        assertEquals("z@backup", chain(client, "z"));
        assertEquals(failovers, s1.stats().failovers(), "no failover once DNS no longer names the dead primary");
    }
}
